# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Unpacking an image atomically: every layer downloaded to a temporary file and checked (blob digest and size,
the uncompressed tar's diff_id from the image config, what it expands to against the cap) before anything is
extracted; extraction into `<dest>.partial` by extract.py (no link followed, nothing outside the root, whatever the
tar says); `<dest>.partial` renamed to `<dest>` only when the caller's checks passed, removed on any error, so a
failed run leaves `<dest>` as it found it.

This is deliberately not imagekit's unpacker: the verifier shares no code with the producer it checks."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from . import SourceError, deadline, extract, limits, shapes
from .registry import Manifest, Registry

GZIP_TYPES = ("application/vnd.oci.image.layer.v1.tar+gzip", "application/vnd.docker.image.rootfs.diff.tar.gzip")
TAR_TYPES = ("application/vnd.oci.image.layer.v1.tar",)
READ = 1 << 20


def partial_of(dest: Path) -> Path:
    return dest.with_name(dest.name + ".partial")


def _clear(path: Path) -> None:
    """Removes what an interrupted earlier run left at `path` (a link is removed, never followed)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


@contextlib.contextmanager
def atomic(dest: Path) -> Iterator[Path]:
    """Yields `<dest>.partial` to fill; renames it to `dest` when the block ends without an error."""
    if dest.is_symlink() or (dest.exists() and (not dest.is_dir() or any(dest.iterdir()))):
        raise SourceError(f"dest {dest}: exists and is not an empty directory")
    partial = partial_of(dest)
    _clear(partial)
    partial.mkdir(parents=True)
    try:
        yield partial
        if dest.exists():
            dest.rmdir()
        partial.rename(dest)
    except BaseException:
        _clear(partial)
        raise


def _opener(path: Path, compressed: bool):
    return gzip.open(path, "rb") if compressed else open(path, "rb")


def _diff_id(path: Path, compressed: bool, budget: list[int], what: str) -> str:
    """The uncompressed tar's digest; the bytes it expands to are taken from `budget[0]` as they come."""
    sha = hashlib.sha256()
    try:
        with _opener(path, compressed) as f:
            while chunk := f.read(READ):
                budget[0] -= len(chunk)
                if budget[0] < 0:
                    raise SourceError(f"{what}: the image expands to more than {limits.LAYER_EXPANDED_BYTES} "
                                      f"bytes")
                sha.update(chunk)
                deadline.check()
    except (OSError, EOFError, zlib.error) as exc:
        raise SourceError(f"{what}: not a valid gzip stream: {shapes.describe(str(exc))}") from None
    return "sha256:" + sha.hexdigest()


def _config(registry: Registry, manifest: Manifest, what: str) -> tuple[dict, list[str]]:
    chunks: list[bytes] = []
    registry.blob(manifest.repo, manifest.config, sink=chunks.append, max_size=limits.JSON_BLOB_BYTES)
    config = shapes.top(shapes.load(b"".join(chunks), what, "image config"), what, "config")
    rootfs = shapes.get(config, "rootfs", "an object", what, "config", {})
    diff_ids = shapes.get(rootfs, "diff_ids", "a list", what, "config.rootfs", [])
    for i, diff_id in enumerate(diff_ids):
        if not isinstance(diff_id, str) or not shapes.DIGEST.fullmatch(diff_id):
            raise SourceError(f"{what}: config.rootfs.diff_ids[{i}] {shapes.describe(diff_id)} is not a sha256 "
                              f"digest")
    return config, diff_ids


def image(registry: Registry, manifest: Manifest, root: Path) -> dict:
    """Unpacks the image's layers, in order, into `root`; returns the image config (checked against its digest)."""
    what = f"{registry.host}/{manifest.repo}@{manifest.digest}"
    config, diff_ids = _config(registry, manifest, what)
    if len(diff_ids) != len(manifest.layers):
        raise SourceError(f"{what}: {len(manifest.layers)} layers but {len(diff_ids)} diff_ids in the config")
    expanded = [limits.LAYER_EXPANDED_BYTES]
    with tempfile.TemporaryDirectory(prefix="module-source-") as tmp:
        files = []
        for i, desc in enumerate(manifest.layers):  # all downloaded and checked before anything is extracted
            media_type = desc.get("mediaType", "")
            if media_type not in GZIP_TYPES + TAR_TYPES:
                raise SourceError(f"{what}: layer {desc['digest']}: unsupported media type "
                                  f"{shapes.describe(media_type)}")
            path = Path(tmp) / f"layer-{i}"
            with open(path, "wb") as f:
                registry.blob(manifest.repo, desc, out=f)
            compressed = media_type in GZIP_TYPES
            diff_id = _diff_id(path, compressed, expanded, f"{what}: layer {desc['digest']}")
            if diff_id != diff_ids[i]:
                raise SourceError(f"{what}: layer {desc['digest']} unpacks to {diff_id}, the config says "
                                  f"{diff_ids[i]}: tampered or corrupted")
            files.append((path, compressed, desc["digest"]))
        budget = extract.Budget()
        for path, compressed, digest in files:
            with _opener(path, compressed) as stream:
                extract.layer(stream, root, f"{what}: layer {digest}", budget)
    extract.check_links(root, what)
    return config


def read_files(registry: Registry, manifest: Manifest, names: tuple[str, ...],
               limit: int = limits.JSON_BLOB_BYTES) -> dict[str, bytes]:
    """The named regular files (at most `limit` bytes each) of a small image (the release image), read from its
    checked layers."""
    with tempfile.TemporaryDirectory(prefix="module-source-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        image(registry, manifest, root)
        out = {}
        for name in names:
            path = root / name
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= limit:
                out[name] = path.read_bytes()
        return out

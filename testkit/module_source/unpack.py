# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Unpacking an image atomically: every layer downloaded to a temporary file and checked (blob digest and size,
the uncompressed tar's diff_id from the image config) before anything is extracted; extraction into
`<dest>.partial` with tarfile's `data` filter (no absolute paths, no escaping links, no devices) and OCI whiteouts;
`<dest>.partial` renamed to `<dest>` only when the caller's checks passed, removed on any error."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from . import SourceError
from .registry import Manifest, Registry

GZIP_TYPES = ("application/vnd.oci.image.layer.v1.tar+gzip", "application/vnd.docker.image.rootfs.diff.tar.gzip")
TAR_TYPES = ("application/vnd.oci.image.layer.v1.tar",)
WHITEOUT, OPAQUE = ".wh.", ".wh..wh..opq"


def partial_of(dest: Path) -> Path:
    return dest.with_name(dest.name + ".partial")


@contextlib.contextmanager
def atomic(dest: Path) -> Iterator[Path]:
    """Yields `<dest>.partial` to fill; renames it to `dest` when the block ends without an error."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise SourceError(f"dest {dest}: exists and is not an empty directory")
    partial = partial_of(dest)
    shutil.rmtree(partial, ignore_errors=True)  # what an interrupted earlier run left
    partial.mkdir(parents=True)
    try:
        yield partial
        if dest.exists():
            dest.rmdir()
        partial.rename(dest)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _diff_id(path: Path, compressed: bool) -> str:
    sha = hashlib.sha256()
    opener = gzip.open if compressed else open
    try:
        with opener(path, "rb") as f:
            while chunk := f.read(1 << 20):
                sha.update(chunk)
    except (OSError, EOFError) as exc:
        raise SourceError(f"layer is not a valid gzip stream: {exc}") from None
    return "sha256:" + sha.hexdigest()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _whiteout(root: Path, name: str) -> bool:
    """Applies an OCI whiteout entry; True when `name` was one."""
    parent, _, base = name.rpartition("/")
    if base == OPAQUE:
        target = (root / parent).resolve()
        if target.is_relative_to(root.resolve()) and target.is_dir():
            for child in target.iterdir():
                _remove(child)
        return True
    if base.startswith(WHITEOUT):
        target = root / parent / base[len(WHITEOUT):]
        if target.parent.resolve().is_relative_to(root.resolve()) and (target.exists() or target.is_symlink()):
            _remove(target)
        return True
    return False


def _extract(layer: Path, compressed: bool, root: Path, what: str) -> None:
    try:
        with tarfile.open(layer, "r:gz" if compressed else "r:") as tar:
            for member in tar:
                if _whiteout(root, member.name.strip("/")):
                    continue
                tar.extract(member, root, filter="data")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise SourceError(f"{what}: cannot unpack: {exc}") from None


def image(registry: Registry, manifest: Manifest, root: Path) -> dict:
    """Unpacks the image's layers, in order, into `root`; returns the image config (checked against its digest)."""
    what = f"{registry.host}/{manifest.repo}@{manifest.digest}"
    config_desc = manifest.doc.get("config") or {}
    chunks: list[bytes] = []
    registry.blob(manifest.repo, config_desc, sink=chunks.append)
    try:
        config = json.loads(b"".join(chunks))
    except ValueError:
        raise SourceError(f"{what}: image config is not JSON") from None
    diff_ids = (config.get("rootfs") or {}).get("diff_ids") or []
    if len(diff_ids) != len(manifest.layers):
        raise SourceError(f"{what}: {len(manifest.layers)} layers but {len(diff_ids)} diff_ids in the config")
    with tempfile.TemporaryDirectory(prefix="module-source-") as tmp:
        files = []
        for i, desc in enumerate(manifest.layers):  # all downloaded and checked before anything is extracted
            media_type = desc.get("mediaType", "")
            if media_type not in GZIP_TYPES + TAR_TYPES:
                raise SourceError(f"{what}: layer {desc.get('digest')}: unsupported media type {media_type!r}")
            path = Path(tmp) / f"layer-{i}"
            with open(path, "wb") as f:
                registry.blob(manifest.repo, desc, out=f)
            compressed = media_type in GZIP_TYPES
            diff_id = _diff_id(path, compressed)
            if diff_id != diff_ids[i]:
                raise SourceError(f"{what}: layer {desc['digest']} unpacks to {diff_id}, the config says "
                                  f"{diff_ids[i]}: tampered or corrupted")
            files.append((path, compressed, desc["digest"]))
        for path, compressed, digest in files:
            _extract(path, compressed, root, f"{what}: layer {digest}")
    return config


def read_files(registry: Registry, manifest: Manifest, names: tuple[str, ...], limit: int = 1 << 20
               ) -> dict[str, bytes]:
    """The named files of a small image (the release image), read in memory from its checked layers."""
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

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An image's root filesystem from its OCI layout: the layers applied in order (OCI whiteouts honoured), every
blob checked against its digest first, the result renamed into place only when complete."""

from __future__ import annotations

import hashlib
import shutil
import tarfile
from pathlib import Path

from . import oci
from .errors import ImageError

WHITEOUT = ".wh."
OPAQUE = ".wh..wh..opq"


class UnpackError(ImageError):
    pass


def _checked(layout: Path, digest: str) -> Path:
    path = oci.blob_path(layout, digest)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    if f"sha256:{h.hexdigest()}" != digest:
        raise UnpackError(f"{path}: content does not match its digest {digest}")
    return path


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def apply_layer(blob: Path, root: Path) -> None:
    with tarfile.open(blob, "r:*") as tar:
        for member in tar.getmembers():
            rel = Path(member.name.removeprefix("./").lstrip("/"))
            if rel.name == OPAQUE:
                for child in (root / rel.parent).iterdir():
                    _remove(child)
                continue
            if rel.name.startswith(WHITEOUT):
                _remove(root / rel.parent / rel.name[len(WHITEOUT):])
                continue
            dest = root / rel
            if not member.isdir():
                _remove(dest)
            tar.extract(member, root, set_attrs=not member.issym(), filter="tar")


def unpack(layout: Path, dest: Path) -> Path:
    """`dest` becomes the image's root filesystem (replaced); returns it."""
    _, manifest = oci.read_manifest(layout)
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        for desc in manifest["layers"]:
            apply_layer(_checked(layout, desc["digest"]), partial)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    shutil.rmtree(dest, ignore_errors=True)
    partial.rename(dest)
    return dest

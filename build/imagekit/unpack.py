# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An image's root filesystem from its OCI layout: the layers applied in order (OCI whiteouts honoured), every
blob checked against its digest first, the result renamed into place only when complete. A layer is input from
elsewhere: every entry path (whiteouts included) is resolved under the root without following a symlink, and
one that leaves the root or passes through a symlink is refused before anything is removed or written."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
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
    """Removes what is at `path` itself, never what a symlink there points to."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)
    else:
        path.unlink()


def _parts(blob: Path, member: tarfile.TarInfo, name: str, what: str = "") -> list[str]:
    """`name` as path components under the root: a leading "/" means the root, "." is dropped, ".." refused."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise _refused(blob, member, f"{what}a '..' component leaves the root")
    return parts


def _is_dir(path: Path) -> bool:
    """A real directory: a symlink to one is not."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _refused(blob: Path, member: tarfile.TarInfo, why: str) -> UnpackError:
    return UnpackError(f"{blob}: entry {member.name!r} refused: {why}")


def _walk_parents(root: Path, parts: list[str], blob: Path, member: tarfile.TarInfo, what: str = "") -> Path:
    """root/parts, every component before the last an existing real directory or missing (extraction makes it
    one): never a symlink, which could point anywhere, the outside of the root included."""
    path = root
    for i, part in enumerate(parts[:-1]):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            break  # nothing below a missing directory exists either
        if stat.S_ISLNK(mode):
            raise _refused(blob, member, f"{what}{'/'.join(parts[:i + 1])} is a symlink")
        if not stat.S_ISDIR(mode):
            raise _refused(blob, member, f"{what}{'/'.join(parts[:i + 1])} is not a directory")
    return root.joinpath(*parts)


def _check_hardlink(root: Path, blob: Path, member: tarfile.TarInfo) -> None:
    """A hard link's target is a regular file inside the root, reached without a symlink (os.link follows a
    symlink: a link to one would give the image a file of the host)."""
    what = f"hard link to {member.linkname!r}: "
    parts = _parts(blob, member, member.linkname, what)
    if not parts:
        raise _refused(blob, member, f"{what}not a file")
    target = _walk_parents(root, parts, blob, member, what)
    try:
        regular = stat.S_ISREG(os.lstat(target).st_mode)
    except FileNotFoundError:
        regular = False
    if not regular:
        raise _refused(blob, member, f"{what}not a regular file of the root")


def _apply(member: tarfile.TarInfo, tar: tarfile.TarFile, blob: Path, root: Path) -> None:
    # Every path is checked before anything is removed or written; tarfile's filter is a second line only.
    parts = _parts(blob, member, member.name)
    if not parts:
        if member.isdir():
            return  # the root itself ("./")
        raise _refused(blob, member, "no path")
    name = parts[-1]
    if name == OPAQUE:
        directory = _walk_parents(root, parts, blob, member).parent  # every component a real directory, or missing
        for child in sorted(directory.iterdir()) if _is_dir(directory) else ():
            _remove(child)
        return
    if name.startswith(WHITEOUT):
        hidden = name[len(WHITEOUT):]
        if hidden == "..":
            raise _refused(blob, member, "a whiteout of '..' leaves the root")
        if hidden in ("", "."):
            raise _refused(blob, member, "a whiteout that names no file")
        _remove(_walk_parents(root, [*parts[:-1], hidden], blob, member))
        return
    dest = _walk_parents(root, parts, blob, member)
    if member.islnk():
        _check_hardlink(root, blob, member)
    if not (member.isdir() and _is_dir(dest)):
        _remove(dest)  # a directory stays (what it holds too); anything else is replaced
    try:
        tar.extract(member, root, set_attrs=not member.issym(), filter="tar")
    except (tarfile.TarError, OSError, KeyError) as exc:
        raise _refused(blob, member, str(exc)) from None


def apply_layer(blob: Path, root: Path) -> None:
    """Applies the layer in `blob` to `root`; an entry that would reach outside the root, or pass through a
    symlink, is refused with an UnpackError naming the layer and the entry, before anything is touched for it."""
    with tarfile.open(blob, "r:*") as tar:
        for member in tar.getmembers():
            _apply(member, tar, blob, root)


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

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One image layer: a tar of entries, sorted, owned by root, every mtime the same, gzip without a timestamp, so
the digest names the content alone and an unchanged layer is the same blob in every build and every image.

No file or directory of a layer has a mode beyond rwxr-xr-x (no setuid, setgid, sticky, group or world write): a
mode taken from a source (a staged file or directory) is masked to that, a mode written in an Entry that goes
beyond it is refused (asking for setuid is a bug in the declaration). Symlinks are 0777 (tar ignores it)."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip"
MTIME = 0  # layers are content-addressed across commits; the commit time goes into the image config only
COMPRESSLEVEL = 6
ALLOWED_MODE = 0o755  # the bits a layer's files and directories may have


def masked(mode: int) -> int:
    """A source's mode as a layer holds it: permission bits only, none beyond ALLOWED_MODE."""
    return mode & ALLOWED_MODE


@dataclass(frozen=True)
class Entry:
    path: str  # inside the image, relative, "/"-separated, no leading "/"
    source: Path | None = None  # a file to copy, or a directory whose mode to take
    data: bytes | None = None  # or its bytes
    link: str | None = None  # a symlink's target
    # default: the source's mode masked; else 0o755 for a directory, 0o644 for a file; 0o777 for a link, always
    mode: int | None = None

    @property
    def is_dir(self) -> bool:
        return self.data is None and self.link is None and (self.source is None or self.source.is_dir())

    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        return self.source.stat().st_size if self.source is not None and not self.is_dir else 0

    def layer_mode(self) -> int:
        if self.link is not None:
            return 0o777
        if self.mode is not None:
            return self.mode
        if self.source is not None:
            return masked(self.source.stat().st_mode)
        return 0o755 if self.is_dir else 0o644


@dataclass(frozen=True)
class Layer:
    digest: str  # of the gzip blob
    size: int
    diff_id: str  # of the tar
    media_type: str = MEDIA_TYPE


class _Digesting(io.RawIOBase):
    """A write-through file that counts and hashes what passes (the tar's diff_id, then the blob's digest)."""

    def __init__(self, out) -> None:
        self.out, self.sha, self.size = out, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        self.sha.update(b)
        self.size += len(b)
        return self.out.write(b) if self.out is not None else len(b)


def _info(entry: Entry) -> tarfile.TarInfo:
    info = tarfile.TarInfo(entry.path + ("/" if entry.is_dir else ""))
    info.mtime, info.uid, info.gid, info.uname, info.gname = MTIME, 0, 0, "", ""
    info.mode = entry.layer_mode()
    if entry.link is not None:
        info.type, info.linkname = tarfile.SYMTYPE, entry.link
    elif entry.is_dir:
        info.type = tarfile.DIRTYPE
    else:
        info.size = entry.size()
    return info


def ordered(entries: Iterable[Entry]) -> list[Entry]:
    """Sorted by path, one entry per path (the last given wins), every parent directory present."""
    by_path: dict[str, Entry] = {}
    for entry in entries:
        path = entry.path.strip("/")
        if not path or ".." in path.split("/"):
            raise ValueError(f"layer entry {entry.path!r}: not a relative path inside the image")
        if entry.link is None and entry.mode is not None and entry.mode & ~ALLOWED_MODE:
            raise ValueError(f"layer entry {entry.path!r}: mode {entry.mode:#o} goes beyond {ALLOWED_MODE:#o} "
                             "(setuid, setgid, sticky, group or world write)")
        parts = path.split("/")
        for i in range(1, len(parts)):
            by_path.setdefault("/".join(parts[:i]), Entry("/".join(parts[:i])))
        by_path[path] = Entry(path, entry.source, entry.data, entry.link, entry.mode)
    return [by_path[p] for p in sorted(by_path)]


def _add(tar: tarfile.TarFile, entry: Entry) -> None:
    info = _info(entry)
    if entry.data is not None:
        tar.addfile(info, io.BytesIO(entry.data))
    elif info.isreg():
        with open(entry.source, "rb") as src:
            tar.addfile(info, src)
    else:
        tar.addfile(info)


def write_layer(entries: Iterable[Entry], blobs: Path) -> Layer:
    """Writes the layer's blob into `blobs` (an OCI blobs/sha256 directory) and returns its descriptor."""
    sorted_entries = ordered(entries)  # refuses a bad entry before anything is written
    blobs.mkdir(parents=True, exist_ok=True)
    tmp = blobs / f".layer.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            gz_out = _Digesting(f)
            with gzip.GzipFile(fileobj=gz_out, mode="wb", compresslevel=COMPRESSLEVEL, mtime=0, filename="") as gz:
                tar_out = _Digesting(gz)
                with tarfile.open(fileobj=tar_out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                    for entry in sorted_entries:
                        _add(tar, entry)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    digest = gz_out.sha.hexdigest()
    tmp.replace(blobs / digest)
    return Layer(f"sha256:{digest}", gz_out.size, f"sha256:{tar_out.sha.hexdigest()}")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One image layer: a tar of entries, sorted, owned by root, every mtime the same, gzip without a timestamp, so
the digest names the content alone and an unchanged layer is the same blob in every build and every image."""

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


@dataclass(frozen=True)
class Entry:
    path: str  # inside the image, relative, "/"-separated, no leading "/"
    source: Path | None = None  # a file to copy
    data: bytes | None = None  # or its bytes
    link: str | None = None  # a symlink's target
    mode: int | None = None  # default: 0o755 for a directory, 0o644 for a file, 0o777 for a link

    @property
    def is_dir(self) -> bool:
        return self.source is None and self.data is None and self.link is None

    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        return self.source.stat().st_size if self.source is not None else 0


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
    if entry.is_dir:
        info.type, info.mode = tarfile.DIRTYPE, 0o755 if entry.mode is None else entry.mode
    elif entry.link is not None:
        info.type, info.linkname, info.mode = tarfile.SYMTYPE, entry.link, 0o777
    else:
        info.size, info.mode = entry.size(), 0o644 if entry.mode is None else entry.mode
    return info


def ordered(entries: Iterable[Entry]) -> list[Entry]:
    """Sorted by path, one entry per path (the last given wins), every parent directory present."""
    by_path: dict[str, Entry] = {}
    for entry in entries:
        path = entry.path.strip("/")
        if not path or ".." in path.split("/"):
            raise ValueError(f"layer entry {entry.path!r}: not a relative path inside the image")
        parts = path.split("/")
        for i in range(1, len(parts)):
            by_path.setdefault("/".join(parts[:i]), Entry("/".join(parts[:i])))
        by_path[path] = Entry(path, entry.source, entry.data, entry.link, entry.mode)
    return [by_path[p] for p in sorted(by_path)]


def write_layer(entries: Iterable[Entry], blobs: Path) -> Layer:
    """Writes the layer's blob into `blobs` (an OCI blobs/sha256 directory) and returns its descriptor."""
    blobs.mkdir(parents=True, exist_ok=True)
    tmp = blobs / f".layer.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        gz_out = _Digesting(f)
        with gzip.GzipFile(fileobj=gz_out, mode="wb", compresslevel=COMPRESSLEVEL, mtime=0, filename="") as gz:
            tar_out = _Digesting(gz)
            with tarfile.open(fileobj=tar_out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                for entry in ordered(entries):
                    info = _info(entry)
                    if entry.source is not None:
                        with open(entry.source, "rb") as src:
                            tar.addfile(info, src)
                    elif entry.data is not None:
                        tar.addfile(info, io.BytesIO(entry.data))
                    else:
                        tar.addfile(info)
    digest = gz_out.sha.hexdigest()
    tmp.replace(blobs / digest)
    return Layer(f"sha256:{digest}", gz_out.size, f"sha256:{tar_out.sha.hexdigest()}")

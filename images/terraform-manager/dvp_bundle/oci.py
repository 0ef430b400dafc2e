# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A one-layer OCI image layout (image-spec v1.1) written byte for byte the same from the same entries: the
layer is a tar with zero times and owners and a gzip without a timestamp, so the digest names the content and an
unchanged tree pushes nothing new. `crane push <dir> <ref>` sends it to a registry."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

from .contents import Entry

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CONFIG = "application/vnd.oci.image.config.v1+json"
LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
INDEX = "application/vnd.oci.image.index.v1+json"
CHUNK = 1 << 20


@dataclass(frozen=True)
class Image:
    layout: Path
    digest: str  # of the manifest: what dhctl pins in images_digests.json
    layer_digest: str
    diff_id: str


def _info(entry: Entry) -> tarfile.TarInfo:
    info = tarfile.TarInfo(entry.path + ("/" if entry.is_dir else ""))
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    if entry.is_dir:
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    elif entry.link is not None:
        info.type, info.linkname, info.mode = tarfile.SYMTYPE, entry.link, 0o777
    else:
        info.size, info.mode = entry.source.stat().st_size, 0o755 if entry.executable else 0o644
    return info


class _Digesting(io.RawIOBase):
    """A write-through file that counts and hashes what passes (the layer's diff_id, then its digest)."""

    def __init__(self, out):
        self.out, self.sha, self.size = out, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        self.sha.update(b)
        self.size += len(b)
        return self.out.write(b) if self.out is not None else len(b)


def _blob(blobs: Path, data: bytes) -> dict:
    digest = hashlib.sha256(data).hexdigest()
    (blobs / digest).write_bytes(data)
    return {"digest": f"sha256:{digest}", "size": len(data)}


def _json(doc: dict) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def write_layout(entries: list[Entry], out: Path, tag: str = "latest", compresslevel: int = 6) -> Image:
    """Replaces `out` with an OCI image layout holding one image of `entries`."""
    shutil.rmtree(out, ignore_errors=True)
    blobs = out / "blobs" / "sha256"
    blobs.mkdir(parents=True)
    tmp = blobs / "layer.tmp"
    with open(tmp, "wb") as f:
        gz_out = _Digesting(f)
        with gzip.GzipFile(fileobj=gz_out, mode="wb", compresslevel=compresslevel, mtime=0) as gz:
            tar_out = _Digesting(gz)
            with tarfile.open(fileobj=tar_out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                for entry in entries:
                    info = _info(entry)
                    if entry.source is not None:
                        with open(entry.source, "rb") as src:
                            tar.addfile(info, src)
                    else:
                        tar.addfile(info)
    layer = {"mediaType": LAYER, "digest": f"sha256:{gz_out.sha.hexdigest()}", "size": gz_out.size}
    tmp.rename(blobs / gz_out.sha.hexdigest())
    diff_id = f"sha256:{tar_out.sha.hexdigest()}"
    config = {"mediaType": CONFIG, **_blob(blobs, _json({
        "architecture": "amd64", "os": "linux", "config": {},
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created_by": "dvp_bundle (cloud-provider-dvp)"}],
    }))}
    manifest = {"mediaType": MANIFEST, **_blob(blobs, _json({
        "schemaVersion": 2, "mediaType": MANIFEST, "config": config, "layers": [layer]}))}
    (out / "oci-layout").write_bytes(_json({"imageLayoutVersion": "1.0.0"}))
    (out / "index.json").write_bytes(_json({"schemaVersion": 2, "mediaType": INDEX, "manifests": [
        {**manifest, "annotations": {"org.opencontainers.image.ref.name": tag}}]}))
    return Image(out, manifest["digest"], layer["digest"], diff_id)

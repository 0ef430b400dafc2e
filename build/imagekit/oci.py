# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""OCI image layouts (image-spec v1.1): one image per layout, its layers taken from a blob store, the config and
manifest as canonical JSON (sorted keys, no spaces), so equal inputs give equal digests. `crane push <dir> <ref>`
sends a layout to a registry; `read_image` reads one back."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .layer import Layer

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CONFIG = "application/vnd.oci.image.config.v1+json"
INDEX = "application/vnd.oci.image.index.v1+json"
EMPTY = "application/vnd.oci.empty.v1+json"
REF_NAME = "org.opencontainers.image.ref.name"


@dataclass(frozen=True)
class Image:
    layout: Path
    digest: str  # of the manifest: what images_digests.json pins
    config_digest: str
    layers: tuple[Layer, ...]

    def blob(self, digest: str) -> Path:
        return blob_path(self.layout, digest)


def canonical(doc: dict) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def blob_path(layout: Path, digest: str) -> Path:
    algo, _, hexa = digest.partition(":")
    return layout / "blobs" / algo / hexa


def _put(blobs: Path, data: bytes) -> dict:
    digest = hashlib.sha256(data).hexdigest()
    (blobs / digest).write_bytes(data)
    return {"digest": f"sha256:{digest}", "size": len(data)}


def _link(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another filesystem
        shutil.copyfile(src, dst)


def write_layout(layers: list[Layer], config: dict, out: Path, *, created: str, blobs: Path, tag: str = "latest",
                 annotations: dict | None = None, history: str = "imagekit (cloud-provider-dvp)") -> Image:
    """Replaces `out` with a layout of one image: `layers` (their blobs in the store `blobs`, by hex digest, as
    `layer.write_layer` leaves them) and `config` (the image config's `config` object: User, Env, Entrypoint)."""
    shutil.rmtree(out, ignore_errors=True)
    dest = out / "blobs" / "sha256"
    dest.mkdir(parents=True)
    for layer in layers:
        _link(blobs / layer.digest.partition(":")[2], blob_path(out, layer.digest))
    image_config = {
        "architecture": "amd64", "os": "linux", "created": created, "config": config,
        "rootfs": {"type": "layers", "diff_ids": [layer.diff_id for layer in layers]},
        "history": [{"created": created, "created_by": history} for _ in layers],
    }
    config_desc = {"mediaType": CONFIG, **_put(dest, canonical(image_config))}
    manifest = {"schemaVersion": 2, "mediaType": MANIFEST, "config": config_desc,
                "layers": [{"mediaType": layer.media_type, "digest": layer.digest, "size": layer.size}
                           for layer in layers]}
    if annotations:
        manifest["annotations"] = dict(annotations)
    manifest_desc = {"mediaType": MANIFEST, **_put(dest, canonical(manifest))}
    (out / "oci-layout").write_bytes(canonical({"imageLayoutVersion": "1.0.0"}))
    (out / "index.json").write_bytes(canonical({"schemaVersion": 2, "mediaType": INDEX, "manifests": [
        {**manifest_desc, "annotations": {REF_NAME: tag}}]}))
    return Image(out, manifest_desc["digest"], config_desc["digest"], tuple(layers))


def read_index(layout: Path) -> dict:
    return json.loads((layout / "index.json").read_bytes())


def read_manifest(layout: Path) -> tuple[str, dict]:
    """The digest and body of the layout's one image manifest."""
    (desc,) = read_index(layout)["manifests"]
    return desc["digest"], json.loads(blob_path(layout, desc["digest"]).read_bytes())


def read_config(layout: Path) -> dict:
    _, manifest = read_manifest(layout)
    return json.loads(blob_path(layout, manifest["config"]["digest"]).read_bytes())


def read_image(layout: Path) -> Image:
    digest, manifest = read_manifest(layout)
    config = read_config(layout)
    layers = tuple(Layer(d["digest"], d["size"], diff, d["mediaType"])
                   for d, diff in zip(manifest["layers"], config["rootfs"]["diff_ids"], strict=True))
    return Image(layout, digest, manifest["config"]["digest"], layers)


def write_artifact(data: bytes, media_type: str, subject: Image, out: Path, tag: str) -> str:
    """Replaces `out` with a layout of one artifact manifest (image-spec 1.1: `artifactType`, the empty config,
    one blob of `data`) whose `subject` is `subject`'s manifest, so a registry lists it among the image's
    referrers; returns its digest."""
    shutil.rmtree(out, ignore_errors=True)
    dest = out / "blobs" / "sha256"
    dest.mkdir(parents=True)
    _, subject_manifest = read_manifest(subject.layout)
    subject_bytes = blob_path(subject.layout, subject.digest).read_bytes()
    manifest = {"schemaVersion": 2, "mediaType": MANIFEST, "artifactType": media_type,
                "config": {"mediaType": EMPTY, **_put(dest, b"{}")},
                "layers": [{"mediaType": media_type, **_put(dest, data)}],
                "subject": {"mediaType": MANIFEST, "digest": subject.digest, "size": len(subject_bytes)}}
    manifest_desc = {"mediaType": MANIFEST, "artifactType": media_type, **_put(dest, canonical(manifest))}
    (out / "oci-layout").write_bytes(canonical({"imageLayoutVersion": "1.0.0"}))
    (out / "index.json").write_bytes(canonical({"schemaVersion": 2, "mediaType": INDEX, "manifests": [
        {**manifest_desc, "annotations": {REF_NAME: tag}}]}))
    return manifest_desc["digest"]

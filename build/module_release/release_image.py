# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The release image `<repo>/cloud-provider-dvp/release:vX.Y.Z` (and its channel tags): `version.json`
({"version": "vX.Y.Z"}), `changelog.yaml` from `CHANGELOG/vX.Y.Z.yml` and the module's `module.yaml` (its
requirements, which Deckhouse reads before it downloads the module image)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from imagekit import layer, oci

from . import ReleaseError, fileset

CHANGELOG_DIR = fileset.ROOT / "CHANGELOG"
SECTIONS = ("features", "fixes")


def changelog(version: str, directory: Path | None = None) -> dict:
    """The version's changelog: {area: {features: [{summary}], fixes: [{summary}]}}; a missing or malformed file
    is an error naming it (a release without a changelog is not made)."""
    directory = directory or CHANGELOG_DIR
    path = directory / f"v{version}.yml"
    rel = f"{directory.name}/{path.name}"
    if not path.is_file():
        raise ReleaseError(f"{rel} is missing: write the changelog of v{version} before releasing it")
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ReleaseError(f"{rel}: not YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(doc, dict) or not doc:
        raise ReleaseError(f"{rel}: must map areas to {{features, fixes}}")
    for area, body in doc.items():
        if not isinstance(body, dict) or not body or set(body) - set(SECTIONS):
            raise ReleaseError(f"{rel}: {area}: must hold only {' and '.join(SECTIONS)}")
        for section, items in body.items():
            if not isinstance(items, list) or not items:
                raise ReleaseError(f"{rel}: {area}.{section}: must be a non-empty list")
            for i, item in enumerate(items):
                if not isinstance(item, dict) or not isinstance(item.get("summary"), str) or not item["summary"]:
                    raise ReleaseError(f"{rel}: {area}.{section}[{i}]: needs a summary")
    return doc


def entries(version: str, log: dict, root: Path = fileset.ROOT) -> list[layer.Entry]:
    return [
        layer.Entry("version.json", data=(json.dumps({"version": f"v{version}"}) + "\n").encode()),
        layer.Entry("changelog.yaml", data=yaml.safe_dump(log, sort_keys=False, allow_unicode=True).encode()),
        layer.Entry("module.yaml", source=root / "module.yaml"),
    ]


def write(out: Path, blobs: Path, version: str, log: dict, created: str) -> oci.Image:
    image_layer = layer.write_layer(entries(version, log), blobs)
    config = {"Labels": {"org.opencontainers.image.title": "cloud-provider-dvp/release",
                         "org.opencontainers.image.version": f"v{version}"}}
    return oci.write_layout([image_layer], config, out, created=created, blobs=blobs, tag=f"v{version}",
                            history="module_release: release image")

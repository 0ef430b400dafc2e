# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures: one local registry for the session (`crane registry serve`, blobs on disk so a test can tamper with
one), the real component images built once (imagekit), and small real OCI layouts, unique per test, for the
bad-input tests (their blobs are theirs alone, so tampering with one touches no other test's release)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from imagekit import build, declarations, layer, oci, sbom
from module_release import ReleaseError, crane, local_registry, publish

_counter = itertools.count()


@dataclass(frozen=True)
class Registry:
    host: str
    disk: Path  # crane's blob store: <disk>/sha256/<hex>

    def blob_file(self, digest: str) -> Path:
        return self.disk / "sha256" / digest.partition(":")[2]


@pytest.fixture(scope="session")
def registry(tmp_path_factory) -> Iterator[Registry]:
    disk = tmp_path_factory.mktemp("registry")
    try:
        crane.binary()
        with local_registry.serve(disk) as host:
            yield Registry(host, disk)
    except ReleaseError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def real_images(tmp_path_factory) -> dict[str, build.Built]:
    """Every image of images/*/image.yaml, built once per session (layers cached outside the tree)."""
    return build.build(None, tmp_path_factory.mktemp("images"))


def small_images(out: Path, salt: str) -> dict[str, str]:
    """A tiny real OCI layout per declared image (one layer of one file) with its SBOM; imageKey -> manifest
    digest."""
    blobs = out / ".blobs"
    digests = {}
    for name in declarations.names():
        entry = layer.Entry(f"etc/{name}", data=f"{name} {salt}\n".encode())
        image = oci.write_layout([layer.write_layer([entry], blobs)], {"User": "64535:64535"}, out / name,
                                 created="2026-01-01T00:00:00Z", blobs=blobs)
        sbom.write(image, sbom.document(name, "0.0.0", "2026-01-01T00:00:00Z", [], [f"{name}==0"], []))
        digests[declarations.load(name).key] = image.digest
    return digests


@pytest.fixture
def small_release(registry, tmp_path) -> publish.Release:
    """A release of small images pushed to a repository path of this test's own."""
    salt = f"t{next(_counter)}-{tmp_path.name}"
    small_images(tmp_path / "images", salt)
    return publish.release(f"{registry.host}/{salt}", tmp_path / "images", tmp_path / "work")

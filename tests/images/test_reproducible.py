# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Two builds of the same tree from empty layer caches give byte-identical images: same manifest digests, same
blobs. Only the downloaded .debs are shared (they are checked against images/debian.lock either way)."""

from __future__ import annotations

import os
from pathlib import Path

from imagekit import build, cache, oci

NAMES = ["cloud-data-discoverer", "snapshot-controller"]


def fresh_build(tmp: Path, debs: Path, monkeypatch) -> dict[str, build.Built]:
    monkeypatch.setenv("CPDVP_CACHE", str(tmp / "cache"))
    (tmp / "cache" / "images").mkdir(parents=True)
    (tmp / "cache" / "images" / "debs").symlink_to(debs)
    return build.build(NAMES, tmp / "out")


def blobs(layout: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((layout / "blobs" / "sha256").iterdir())}


def test_two_cold_builds_give_the_same_digests_and_bytes(tmp_path, monkeypatch):
    debs = cache.root() / "debs"
    debs.mkdir(exist_ok=True)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    first = fresh_build(tmp_path / "a", debs, monkeypatch)
    second = fresh_build(tmp_path / "b", debs, monkeypatch)
    assert {n: b.digest for n, b in first.items()} == {n: b.digest for n, b in second.items()}
    for name in NAMES:
        assert blobs(first[name].layout) == blobs(second[name].layout)
        assert (first[name].layout / "index.json").read_bytes() == (second[name].layout / "index.json").read_bytes()
        assert (first[name].layout / "sbom.spdx.json").read_bytes() == \
            (second[name].layout / "sbom.spdx.json").read_bytes()
    config = oci.read_config(first["cloud-data-discoverer"].layout)
    assert config["created"] == "2026-01-01T00:00:00Z"
    assert os.environ["CPDVP_CACHE"] == str(tmp_path / "b" / "cache")


def test_the_commit_time_changes_the_config_only(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    one = build.build(["snapshot-controller"], tmp_path / "one")["snapshot-controller"]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767312000")
    two = build.build(["snapshot-controller"], tmp_path / "two")["snapshot-controller"]
    assert one.digest != two.digest
    assert oci.read_image(one.layout).layers == oci.read_image(two.layout).layers

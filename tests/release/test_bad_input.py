# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Bad releases made for real in the registry, each refused by `module_source verify` with its one line, exit 1,
and nothing in dest (no dest, no dest.partial): a layer pushed that is not the one its config describes, a
blob altered between the registry and the client, a blob corrupted on the registry's disk, a channel retagged to a
version that does not exist, a release image whose version.json is not JSON, a component manifest deleted, a
closed port, a channel that was never tagged, a dest that is not empty."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys

import pytest
from imagekit import layer, oci
from module_release import MODULE, ReleaseError, crane, module_image, publish, release_image
from module_source import __main__ as cli
from module_source.registry import Registry

from . import tampering_proxy
from .conftest import small_images


def verify(capsys, repo: str, dest, channel: str = "stable") -> tuple[int, list[str]]:
    code = cli.main(["verify", "--repo", repo, "--channel", channel, "--dest", str(dest)])
    return code, capsys.readouterr().err.splitlines()


def assert_nothing_left(dest) -> None:
    assert not dest.exists()
    assert not dest.with_name(dest.name + ".partial").exists()


def push_release_image(tmp_path, ref: str, files: dict[str, bytes]) -> str:
    entries = [layer.Entry(name, data=data) for name, data in files.items()]
    image = oci.write_layout([layer.write_layer(entries, tmp_path / "rblobs")], {}, tmp_path / "rimage",
                             created="2026-01-01T00:00:00Z", blobs=tmp_path / "rblobs")
    return crane.push(image.layout, ref)


def module_layer(registry, release) -> str:
    reg = Registry(registry.host)
    try:
        (desc,) = reg.manifest(release.module_ref.split("/", 1)[1].rpartition(":")[0], release.version).layers
    finally:
        reg.close()
    return desc["digest"]


def test_a_good_small_release_verifies(capsys, small_release, tmp_path):
    code, err = verify(capsys, small_release.repo, tmp_path / "dest")
    assert (code, err) == (0, [])
    assert json.loads((tmp_path / "dest" / "images_digests.json").read_text()) == small_release.digests


def test_a_tampered_layer_pushed_under_the_version(capsys, registry, small_release, tmp_path):
    """Someone pushes, at the version's tag, an image whose layer is not the one its config describes."""
    digests = small_release.digests
    blobs = tmp_path / "tblobs"
    true_layer = layer.write_layer(module_image.entries(digests, "0.1.0"), blobs)
    evil = layer.write_layer([*module_image.entries(digests, "0.1.0"),
                              layer.Entry("hooks/evil.py", data=b"#!/usr/bin/env python3\n", mode=0o755)], blobs)
    forged = layer.Layer(evil.digest, evil.size, true_layer.diff_id)  # the config keeps the true diff_id
    image = oci.write_layout([forged], {}, tmp_path / "forged", created="2026-01-01T00:00:00Z", blobs=blobs)
    crane.push(image.layout, f"{small_release.repo}/{MODULE}:v0.1.0")
    code, err = verify(capsys, small_release.repo, tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: {small_release.repo}/{MODULE}@{image.digest}: layer {evil.digest} "
                               f"unpacks to {evil.diff_id}, the config says {true_layer.diff_id}: tampered or "
                               f"corrupted"])
    assert_nothing_left(tmp_path / "dest")


def test_a_blob_altered_on_the_way(capsys, registry, small_release, tmp_path):
    digest = module_layer(registry, small_release)
    data = bytearray(registry.blob_file(digest).read_bytes())
    data[0] ^= 0xFF
    path = small_release.repo.split("/", 1)[1]
    with tampering_proxy.serve(registry.host, digest) as mirror:
        code, err = verify(capsys, f"{mirror}/{path}", tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: {mirror}/{path}/{MODULE}: blob {digest} has digest "
                               f"sha256:{hashlib.sha256(data).hexdigest()} ({len(data)} bytes, {len(data)} "
                               f"expected): tampered or corrupted"])
    assert_nothing_left(tmp_path / "dest")


def test_a_component_blob_corrupted_on_the_registry_disk(capsys, registry, small_release, tmp_path):
    reg = Registry(registry.host)
    path = small_release.repo.split("/", 1)[1]
    try:
        (desc,) = reg.manifest(f"{path}/{MODULE}", small_release.digests["webhooks"]).layers
    finally:
        reg.close()
    blob = registry.blob_file(desc["digest"])
    blob.write_bytes(blob.read_bytes() + b"x")  # crane's registry then answers 404 for it (it hashes its disk)
    code, err = verify(capsys, small_release.repo, tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: images_digests.json: webhooks {small_release.digests['webhooks']}: "
                               f"blob {desc['digest']} is missing from {small_release.repo}/{MODULE}"])
    assert_nothing_left(tmp_path / "dest")


def test_a_channel_retagged_to_a_missing_version(capsys, registry, small_release, tmp_path):
    log = release_image.changelog("0.1.0")
    rel = release_image.write(tmp_path / "r", tmp_path / "rb", "9.9.9", log, "2026-01-01T00:00:00Z")
    crane.push(rel.layout, f"{small_release.repo}/{MODULE}/release:stable")
    code, err = verify(capsys, small_release.repo, tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: release channel stable names v9.9.9, but "
                               f"{small_release.repo}/{MODULE}:v9.9.9 does not exist"])
    assert_nothing_left(tmp_path / "dest")


def test_a_version_json_that_is_not_json(capsys, registry, small_release, tmp_path):
    push_release_image(tmp_path, f"{small_release.repo}/{MODULE}/release:beta",
                       {"version.json": b"version: v0.1.0\n", "changelog.yaml": b"{}\n"})
    code, err = verify(capsys, small_release.repo, tmp_path / "dest", channel="beta")
    assert (code, err) == (1, [f"module_source: release channel beta ({small_release.repo}/{MODULE}/release:beta): "
                               f"version.json is not JSON (Expecting value: line 1 column 1 (char 0))"])
    assert_nothing_left(tmp_path / "dest")


def test_a_component_manifest_deleted(capsys, registry, small_release, tmp_path):
    digest = small_release.digests["csiDriver"]
    res = subprocess.run([str(crane.binary()), "delete", f"{small_release.repo}/{MODULE}@{digest}"],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    code, err = verify(capsys, small_release.repo, tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: images_digests.json: csiDriver {digest} is not in "
                               f"{small_release.repo}/{MODULE}"])
    assert_nothing_left(tmp_path / "dest")


def test_an_image_without_its_sbom(capsys, registry, small_release, tmp_path):
    digest = small_release.digests["webhooks"]
    tag = digest.replace(":", "-") + ".sbom"
    res = subprocess.run([str(crane.binary()), "delete", f"{small_release.repo}/{MODULE}:{tag}"],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    code, err = verify(capsys, small_release.repo, tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: images_digests.json: webhooks {digest}: no SBOM "
                               f"({small_release.repo}/{MODULE}:{tag})"])
    assert_nothing_left(tmp_path / "dest")


def test_an_unreachable_registry(capsys, tmp_path):
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, err = verify(capsys, f"127.0.0.1:{port}/deckhouse", tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: registry 127.0.0.1:{port} is unreachable: GET /v2/: "
                               f"connection refused"])
    assert_nothing_left(tmp_path / "dest")


def test_a_channel_never_tagged(capsys, registry, tmp_path):
    small_images(tmp_path / "images", "alpha-only")
    rel = publish.release(f"{registry.host}/alpha-only", tmp_path / "images", tmp_path / "work", ("alpha",))
    code, err = verify(capsys, rel.repo, tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: release channel stable: no such tag in {rel.repo}/{MODULE}/release "
                               f"(tags: alpha, v0.1.0)"])
    assert_nothing_left(tmp_path / "dest")


def test_a_dest_that_is_not_empty_is_left_alone(capsys, small_release, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "mine").write_text("kept")
    code, err = verify(capsys, small_release.repo, dest)
    assert (code, err) == (1, [f"module_source: dest {dest}: exists and is not an empty directory"])
    assert [p.name for p in dest.iterdir()] == ["mine"]
    assert not (tmp_path / "dest.partial").exists()


def test_the_command_line_exits_1_with_one_line(small_release, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "module_source", "verify", "--repo", small_release.repo,
                           "--channel", "rock-solid-x", "--dest", str(tmp_path / "dest")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"module_source: release channel rock-solid-x: no such tag in {small_release.repo}/{MODULE}/release (tags: "
        f"alpha, beta, early-access, rock-solid, stable, v0.1.0)"]
    assert_nothing_left(tmp_path / "dest")


@pytest.mark.parametrize("repo", ["127.0.0.1:5000", "http://127.0.0.1:5000/x"])
def test_a_repo_without_a_path(capsys, repo, tmp_path):
    code, err = verify(capsys, repo, tmp_path / "dest")
    assert (code, err) == (1, [f"module_source: repo {repo!r}: expected HOST[:PORT]/PATH (a ModuleSource's "
                               f"spec.registry.repo)"])


def test_a_module_version_is_never_overwritten_by_other_images(registry, small_release, tmp_path):
    small_images(tmp_path / "other", "other-content")
    with pytest.raises(ReleaseError) as err:
        publish.release(small_release.repo, tmp_path / "other", tmp_path / "work")
    assert str(err.value).startswith(f"{small_release.module_ref} already holds {small_release.module_digest}, "
                                     f"this build is sha256:")
    reg = Registry(registry.host)
    try:
        module_repo = f"{small_release.repo.split('/', 1)[1]}/{MODULE}"
        assert reg.manifest(module_repo, small_release.version).digest == small_release.module_digest
    finally:
        reg.close()

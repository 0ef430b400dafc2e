# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`module_source verify` against releases a hostile registry made (hostile_registry.py): a layer that reaches
outside its destination, a layer that expands without end, module files of the wrong shape, a registry too slow
for the whole verify. Each is one line on stderr, exit 1, and the directory around the destination exactly as it
was (no dest, no dest.partial, the files beside it untouched)."""

from __future__ import annotations

import gzip
import os
import time
from pathlib import Path

import pytest
from module_release import MODULE
from module_source import __main__ as cli
from module_source import limits
from module_source import verify as verify_module

from .hostile_registry import link, serve, sha, tar


@pytest.fixture
def hostile():
    with serve() as registry:
        yield registry


def state(top: Path) -> dict[str, str]:
    """Every path under `top` with its content, link target or kind."""
    out = {}
    for dirpath, dirs, files in os.walk(top):
        for name in dirs + files:
            p = Path(dirpath) / name
            out[str(p.relative_to(top))] = f"-> {os.readlink(p)}" if p.is_symlink() else \
                "dir" if p.is_dir() else p.read_bytes().hex()
    return out


@pytest.fixture
def place(tmp_path) -> Path:
    """A destination's parent with files of its own beside where dest goes."""
    (tmp_path / "victim").write_text("keep me")
    (tmp_path / "beside").mkdir()
    (tmp_path / "beside" / "file").write_text("keep me too")
    return tmp_path


def verify(capsys, repo: str, dest: Path) -> tuple[int, list[str]]:
    code = cli.main(["verify", "--repo", repo, "--dest", str(dest)])
    return code, capsys.readouterr().err.splitlines()


def refused_untouched(capsys, repo: str, place: Path) -> str:
    before = state(place)
    code, err = verify(capsys, repo, place / "dest")
    assert code == 1 and len(err) == 1, err
    assert state(place) == before
    return err[0]


def layer_what(hostile, path: str, layer: bytes) -> str:
    repo = f"{path}/{MODULE}"
    manifest = hostile.routes[f"/v2/{repo}/manifests/v0.1.0"].body
    return f"{hostile.host}/{repo}@{sha(manifest)}: layer {sha(gzip.compress(layer, mtime=0))}"


@pytest.mark.parametrize(("members", "entry"), [
    ([("ok", b"1"), (".wh...", b"")], 'entry ".wh...": a whiteout must name a plain entry'),
    ([("../victim", b"x")], 'entry "../victim": `..` in the path'),
    ([link("s", ".."), ("s/victim", b"x")], 'entry "s/victim": s is a link or not a directory'),
    ([link("s", ".."), ("s/.wh.victim", b"")], 'entry "s/.wh.victim": s is a link or not a directory'),
    ([link("s", "../beside"), ("s/.wh..wh..opq", b"")], 'entry "s/.wh..wh..opq": s is a link or not a directory'),
    ([link("h", "../victim", hard=True)], 'entry "h": hardlink to "../victim", which is not a file inside the image'),
    ([link("l", "../victim")], 'entry "l": a symlink that leads above the root'),  # checked once all layers are in
])
def test_a_layer_reaching_outside_is_refused_before_it_writes(capsys, hostile, place, members, entry):
    layer = tar(members)
    repo = hostile.release("p", [layer])
    line = refused_untouched(capsys, repo, place)
    what = layer_what(hostile, "p", layer)
    if "symlink that" in entry:
        what = what.split(": layer ")[0]
    assert line == f"module_source: {what}: {entry}"


def test_a_gzip_bomb_is_refused_while_it_expands(capsys, hostile, place, monkeypatch):
    monkeypatch.setattr(limits, "LAYER_EXPANDED_BYTES", 1 << 20)
    layer = tar([("zeros", bytes(4 << 20))])  # 4 MiB of zeros: a 4 KiB gzip blob
    repo = hostile.release("p", [layer])
    assert refused_untouched(capsys, repo, place) == \
        f"module_source: {layer_what(hostile, 'p', layer)}: the image expands to more than 1048576 bytes"


def test_an_entry_bomb_is_refused(capsys, hostile, place, monkeypatch):
    monkeypatch.setattr(limits, "IMAGE_ENTRIES", 50)
    layer = tar([(f"f{i}", b"") for i in range(60)])
    repo = hostile.release("p", [layer])
    assert refused_untouched(capsys, repo, place) == \
        f"module_source: {layer_what(hostile, 'p', layer)}: more than 50 entries in the image"


@pytest.mark.parametrize(("files", "line"), [
    ({"module.yaml": b"name: [unclosed"}, "module image v0.1.0: module.yaml is not YAML"),
    ({"module.yaml": b"- a list\n"}, "module image v0.1.0: module.yaml is not a mapping"),
    ({"module.yaml": b"name: cloud-provider-dvp\n", "Chart.yaml": b"- 1\n"},
     "module image v0.1.0: Chart.yaml is not a mapping"),
    ({"module.yaml": b"name: cloud-provider-dvp\n", "Chart.yaml": b"version: {a: 1}\n"},
     "module image v0.1.0: Chart.yaml version an object is not 0.1.0"),
    ({"module.yaml": b"name: cloud-provider-dvp\n", "Chart.yaml": b"version: 0.1.0\n",
      "images_digests.json": b'["sha256:x"]'},
     "module image v0.1.0: images_digests.json is not an object of image digests"),
    ({"module.yaml": b"name: cloud-provider-dvp\n", "Chart.yaml": b"version: 0.1.0\n",
      "images_digests.json": b'{"webhooks": 12}'}, "images_digests.json: \"webhooks\": 12 is not a sha256 digest"),
    ({"module.yaml": b"&a [*a, *a]\n"}, "module image v0.1.0: module.yaml is not a mapping"),
])
def test_module_files_of_the_wrong_shape(capsys, hostile, place, files, line):
    repo = hostile.release("p", [tar(list(files.items()))])
    assert refused_untouched(capsys, repo, place) == f"module_source: {line}"


def test_a_module_file_that_is_a_link_is_refused(capsys, hostile, place):
    repo = hostile.release("p", [tar([("real.yaml", b"name: cloud-provider-dvp\n"),
                                      link("module.yaml", "real.yaml")])])
    assert refused_untouched(capsys, repo, place) == \
        "module_source: module image v0.1.0: module.yaml is not a regular file of at most 1048576 bytes"


@pytest.mark.parametrize(("version_json", "line"), [
    (b'["v0.1.0"]', "version.json: version must be vX.Y.Z, got None"),
    (b'{"version": 1}', "version.json: version must be vX.Y.Z, got 1"),
])
def test_a_version_json_of_the_wrong_shape(capsys, hostile, place, version_json, line):
    hostile.release("p", [tar([("x", b"")])])
    hostile.image(f"p/{MODULE}/release", "stable", [tar([("version.json", version_json)])])
    assert refused_untouched(capsys, f"{hostile.host}/p", place) == \
        f"module_source: release channel stable ({hostile.host}/p/{MODULE}/release:stable): {line}"


def test_a_registry_too_slow_for_the_whole_verify(capsys, hostile, place, monkeypatch):
    """Every reply comes within its own request deadline; together they outlast the verify's."""
    monkeypatch.setattr(limits, "VERIFY_SECONDS", 1.5)
    repo = hostile.release("p", [tar([("x", b"")])])
    for path, reply in list(hostile.routes.items()):
        if "/blobs/" in path:
            reply.drip = 0.01  # a config of ~150 bytes: 1.5 s each, within REQUEST_SECONDS
    started = time.monotonic()
    assert refused_untouched(capsys, repo, place) == f"module_source: verify {repo}: not done within 1.5 s"
    assert time.monotonic() - started < 10


def test_a_module_the_repo_does_not_list_is_not_found(capsys, hostile, place):
    repo = hostile.release("p", [tar([("x", b"")])])
    hostile.tags("p", ["other-module"])
    assert refused_untouched(capsys, repo, place) == \
        f"module_source: {hostile.host}/p: the module {MODULE} is not listed (a ModuleSource finds modules by the " \
        f"repo's tags; tags: other-module)"


@pytest.mark.parametrize(("channel", "tag"), [("EarlyAccess", "early-access"), ("RockSolid", "rock-solid"),
                                              ("stable", "stable"), ("early-access", "early-access")])
def test_a_channel_named_as_an_update_policy_names_it(channel, tag):
    assert verify_module.channel_tag(channel) == tag


def test_a_dest_that_is_a_link_is_left_alone(capsys, hostile, place):
    repo = hostile.release("p", [tar([("x", b"")])])
    (place / "dest").symlink_to(place / "beside")
    assert refused_untouched(capsys, repo, place) == f"module_source: dest {place / 'dest'}: exists and is not an " \
                                                     f"empty directory"


def test_a_partial_left_as_a_link_is_removed_not_followed(capsys, hostile, place):
    repo = hostile.release("p", [tar([("x", b"")])])
    (place / "dest.partial").symlink_to(place / "beside")
    code, err = verify(capsys, repo, place / "dest")
    assert (code, err) == (1, ["module_source: module image v0.1.0: module.yaml missing or not the module "
                               "cloud-provider-dvp"])
    assert (place / "beside" / "file").read_text() == "keep me too"
    assert sorted(p.name for p in place.iterdir()) == ["beside", "victim"]


def test_a_verify_json_report_is_not_written_on_failure(capsys, hostile, place):
    repo = hostile.release("p", [tar([("module.yaml", b"name: other\n")])])
    code = cli.main(["verify", "--repo", repo, "--dest", str(place / "dest")])
    out = capsys.readouterr()
    assert (code, out.out) == (1, "")
    assert out.err.splitlines() == [
        "module_source: module image v0.1.0: module.yaml missing or not the module cloud-provider-dvp"]

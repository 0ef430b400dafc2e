# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Bad input to the builder: one line naming the file and field, and nothing half-made."""

from __future__ import annotations

import hashlib
import json

import pytest
from imagekit import build, debian, declarations, unpack
from imagekit.debian import DebianError
from imagekit.declarations import DeclarationError
from imagekit.unpack import UnpackError


@pytest.fixture
def images_dir(tmp_path, monkeypatch):
    (tmp_path / "x").mkdir()
    monkeypatch.setattr(declarations, "IMAGES", tmp_path)
    return tmp_path


@pytest.mark.parametrize(("text", "message"), [
    ("base: python\nentrypont: [x]\n",
     "images/x/image.yaml: unknown field 'entrypont' (known: base, contents, debian, entrypoint, env, files, "
     "generated, python, user)"),
    ("base: alpine\n", "images/x/image.yaml: base: 'alpine' is not one of python, static, scratch"),
    ("base: python\npython: [images/nothing-here]\n",
     "images/x/image.yaml: python: images/nothing-here is not a directory of the tree"),
    ("base: static\nfiles: [{from: a}]\n",
     "images/x/image.yaml: files[0]: needs exactly from, to and an optional mode"),
])
def test_a_bad_declaration_is_one_line_naming_its_field(images_dir, text, message):
    (images_dir / "x" / "image.yaml").write_text(text)
    with pytest.raises(DeclarationError) as err:
        declarations.load("x")
    assert str(err.value) == message


def test_an_unknown_image_names_the_known_ones():
    with pytest.raises(DeclarationError, match=r"^images/nope/image.yaml: no such declaration \(images: capdvp-"):
        build.build(["nope"], declarations.ROOT / ".tmp" / "never")
    assert not (declarations.ROOT / ".tmp" / "never").exists()


def test_the_closure_takes_first_alternatives_providers_and_leaves_out_the_excluded():
    index = {
        "python3.13-minimal": {"Package": "python3.13-minimal", "Pre-Depends": "libc6 (>= 2.38)",
                               "Depends": "libexpat1, tzdata | debconf"},
        "libc6": {"Package": "libc6", "Depends": "libgcc-s1"},
        "libgcc-s1": {"Package": "libgcc-s1"},
        "libexpat1": {"Package": "libexpat1", "Depends": "media-types | mime-support, debconf (>= 0.5) | debconf-2.0"},
        "media-types": {"Package": "media-types", "Provides": "mime-support"},
        "tzdata": {"Package": "tzdata", "Depends": "debconf"},
        "debconf": {"Package": "debconf", "Depends": "perl-base"},
    }
    index["virtual:mime-support"] = index["media-types"]
    assert debian.closure(index, ["python3.13-minimal"], {"debconf": "why"}) == [
        "libc6", "libexpat1", "libgcc-s1", "media-types", "python3.13-minimal"]
    with pytest.raises(DebianError, match=r"^package 'nothing' is not in the suite$"):
        debian.closure(index, ["nothing"], {})


def test_a_tampered_layer_is_refused_and_leaves_no_root_filesystem(images, tmp_path):
    layout = tmp_path / "layout"
    import shutil

    shutil.copytree(images["cloud-data-discoverer"].layout, layout)
    manifest = json.loads((layout / "index.json").read_text())["manifests"][0]["digest"]
    layers = json.loads((layout / "blobs/sha256" / manifest.split(":")[1]).read_text())["layers"]
    victim = layout / "blobs/sha256" / layers[-1]["digest"].split(":")[1]
    victim.chmod(0o644)
    data = bytearray(victim.read_bytes())
    data[100] ^= 0xFF
    victim.unlink()
    victim.write_bytes(bytes(data))
    assert hashlib.sha256(data).hexdigest() != layers[-1]["digest"].split(":")[1]
    with pytest.raises(UnpackError, match=rf"content does not match its digest {layers[-1]['digest']}$"):
        unpack.unpack(layout, tmp_path / "root")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["layout"]

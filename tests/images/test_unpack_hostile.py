# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Layers made to reach outside the root they are unpacked into (`..` in a path or a whiteout, a symlink on the
way, a hard link out): each is refused with one line naming the layer and the entry, and the files beside the
root are exactly as before. A well-formed layer with whiteouts, an opaque directory and a hard link still
applies."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest
from imagekit import unpack
from imagekit.unpack import UnpackError


def member(name: str, *, data: bytes | None = None, symlink: str | None = None, hardlink: str | None = None,
           directory: bool = False) -> tuple[tarfile.TarInfo, bytes | None]:
    info = tarfile.TarInfo(name)
    if symlink is not None:
        info.type, info.linkname = tarfile.SYMTYPE, symlink
    elif hardlink is not None:
        info.type, info.linkname = tarfile.LNKTYPE, hardlink
    elif directory:
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        data = data if data is not None else b"from the layer"
        info.size, info.mode = len(data), 0o644
    return info, data


def layer(path: Path, *members: tuple[tarfile.TarInfo, bytes | None]) -> Path:
    with tarfile.open(path, "w") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


@pytest.fixture
def world(tmp_path) -> Path:
    """tmp_path holding root/ (unpacked into), layers/ (the tars), outside/ (never to be touched) and a sentinel
    beside root/."""
    (tmp_path / "root").mkdir()
    (tmp_path / "layers").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim").write_text("outside")
    (tmp_path / "sentinel").write_text("beside the root")
    return tmp_path


def outside_as_before(world: Path) -> bool:
    return (sorted(p.name for p in world.iterdir()) == ["layers", "outside", "root", "sentinel"]
        and [p.name for p in (world / "outside").iterdir()] == ["victim"]
        and (world / "outside" / "victim").read_text() == "outside"
        and (world / "sentinel").read_text() == "beside the root"
        and os.stat(world / "sentinel").st_nlink == os.stat(world / "outside" / "victim").st_nlink == 1)


def refusal(blob: Path, root: Path) -> str:
    with pytest.raises(UnpackError) as err:
        unpack.apply_layer(blob, root)
    return str(err.value)


@pytest.mark.parametrize(("entry", "why"), [
    (member("../.wh.sentinel", data=b""), "a '..' component leaves the root"),
    (member(".wh...", data=b""), "a whiteout of '..' leaves the root"),
    (member("../sentinel", data=b"overwritten"), "a '..' component leaves the root"),
    (member("a/../../sentinel", data=b"overwritten"), "a '..' component leaves the root"),
    (member("/../sentinel", data=b"overwritten"), "a '..' component leaves the root"),
    (member("..", directory=True), "a '..' component leaves the root"),
    (member("x", hardlink="../sentinel"), "hard link to '../sentinel': a '..' component leaves the root"),
    (member(".wh.", data=b""), "a whiteout that names no file"),
])
def test_an_entry_that_climbs_out_of_the_root_is_refused(world, entry, why):
    blob = layer(world / "layers" / "hostile.tar", entry)
    assert refusal(blob, world / "root") == f"{blob}: entry {entry[0].name!r} refused: {why}"
    assert outside_as_before(world)
    assert list((world / "root").iterdir()) == []


@pytest.mark.parametrize("target", ["outside", "up"])
@pytest.mark.parametrize(("name", "entry"), [
    ("a/.wh.victim", member("a/.wh.victim", data=b"")),
    ("a/victim", member("a/victim", data=b"overwritten")),
    ("a/new/file", member("a/new/file", data=b"planted")),
    ("a/.wh..wh..opq", member("a/.wh..wh..opq", data=b"")),
    ("a/dir", member("a/dir", directory=True)),
    ("a/sym", member("a/sym", symlink="/etc/passwd")),
])
@pytest.mark.parametrize("same_layer", [True, False], ids=["same-layer", "next-layer"])
def test_an_entry_under_a_symlink_is_refused(world, target, name, entry, same_layer):
    # a -> the outside directory (absolute), or a -> .. (the root's parent, which holds the sentinel)
    link = member("a", symlink=str(world / "outside") if target == "outside" else "..")
    if same_layer:
        blob = layer(world / "layers" / "hostile.tar", link, entry)
    else:
        unpack.apply_layer(layer(world / "layers" / "first.tar", link), world / "root")
        blob = layer(world / "layers" / "hostile.tar", entry)
    assert refusal(blob, world / "root") == f"{blob}: entry {name!r} refused: a is a symlink"
    assert outside_as_before(world)
    assert os.readlink(world / "root" / "a") == (str(world / "outside") if target == "outside" else "..")


@pytest.mark.parametrize(("entries", "why"), [
    ([member("a", symlink=".."), member("x", hardlink="a/sentinel")], "hard link to 'a/sentinel': a is a symlink"),
    ([member("s", symlink="../sentinel"), member("x", hardlink="s")],
     "hard link to 's': not a regular file of the root"),
    ([member("x", hardlink="missing")], "hard link to 'missing': not a regular file of the root"),
    ([member("d", directory=True), member("x", hardlink="d")], "hard link to 'd': not a regular file of the root"),
])
def test_a_hard_link_must_name_a_file_inside_the_root(world, entries, why):
    blob = layer(world / "layers" / "hostile.tar", *entries)
    assert refusal(blob, world / "root") == f"{blob}: entry 'x' refused: {why}"
    assert outside_as_before(world)
    assert not (world / "root" / "x").exists()


def test_a_path_through_a_file_is_refused(world):
    blob = layer(world / "layers" / "hostile.tar", member("f", data=b"a file"), member("f/g", data=b"below a file"))
    assert refusal(blob, world / "root") == f"{blob}: entry 'f/g' refused: f is not a directory"


def test_a_well_formed_layer_applies_with_whiteouts_opaque_directories_and_links(world):
    root, layers = world / "root", world / "layers"
    unpack.apply_layer(layer(layers / "lower.tar", member("etc", directory=True), member("etc/keep", data=b"k"),
                             member("etc/gone", data=b"g"), member("opt", directory=True),
                             member("opt/old", data=b"o"), member("lib", symlink="usr/lib"),
                             member("/abs", data=b"absolute names mean the root")), root)
    unpack.apply_layer(layer(layers / "upper.tar", member("etc/.wh.gone", data=b""),
                             member("opt/.wh..wh..opq", data=b""), member("opt/new", data=b"n"),
                             member("lib", directory=True), member("lib/x", data=b"x"),
                             member("etc/keep2", hardlink="etc/keep"), member("./", directory=True)), root)
    files = sorted(str(p.relative_to(root)) + ("@" if p.is_symlink() else "/" if p.is_dir() else "")
                   for p in root.rglob("*"))
    assert files == ["abs", "etc/", "etc/keep", "etc/keep2", "lib/", "lib/x", "opt/", "opt/new"]
    assert os.stat(root / "etc" / "keep").st_ino == os.stat(root / "etc" / "keep2").st_ino
    assert (root / "abs").read_bytes() == b"absolute names mean the root"
    assert outside_as_before(world)

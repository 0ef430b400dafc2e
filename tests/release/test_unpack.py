# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""module_source.unpack and extract on their own: layers applied in order with OCI whiteouts (an opaque one keeps
what its own layer writes), nothing written outside the target (`..` and links out of it refused, absolute paths
kept inside; every class in test_traversal.py), and `atomic` leaving either the whole dest or nothing."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest
from module_source import SourceError, extract, unpack


def apply(path, root, what: str, budget=None) -> None:
    with gzip.open(path, "rb") as stream:
        extract.layer(stream, root, what, budget or extract.Budget())
    extract.check_links(root, what)


def tar_file(path, members: list[tuple[str, bytes | str | None]]) -> None:
    """(name, bytes) a file, (name, "->target") a symlink, (name, None) a directory."""
    with tarfile.open(path, "w:gz") as tar:
        for name, body in members:
            info = tarfile.TarInfo(name)
            if body is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif isinstance(body, str):
                info.type, info.linkname = tarfile.SYMTYPE, body.removeprefix("->")
                tar.addfile(info)
            else:
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))


def test_layers_apply_in_order_with_whiteouts(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    tar_file(tmp_path / "l1", [("a", None), ("a/x", b"1"), ("a/y", b"2"), ("b", None), ("b/z", b"3"),
                               ("link", "->a/x")])
    tar_file(tmp_path / "l2", [("a/.wh.x", b""), ("b/.wh..wh..opq", b""), ("b/new", b"4")])
    apply(tmp_path / "l1", root, "l1")
    apply(tmp_path / "l2", root, "l2")
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    assert files == ["a", "a/y", "b", "b/new", "link"]
    assert (root / "link").readlink().as_posix() == "a/x"


def test_an_absolute_path_lands_inside_the_target(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    tar_file(tmp_path / "layer", [("/abs/file", b"x")])
    apply(tmp_path / "layer", root, "layer")
    assert (root / "abs" / "file").read_bytes() == b"x"


def test_an_opaque_whiteout_keeps_what_its_own_layer_writes(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    tar_file(tmp_path / "l1", [("d", None), ("d/old", b"1")])
    tar_file(tmp_path / "l2", [("d", None), ("d/new", b"2"), ("d/.wh..wh..opq", b"")])
    apply(tmp_path / "l1", root, "l1")
    apply(tmp_path / "l2", root, "l2")
    assert sorted(p.name for p in (root / "d").iterdir()) == ["new"]


def test_modes_keep_only_the_executable_bits(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    with tarfile.open(tmp_path / "layer", "w:gz") as tar:
        for name, mode in (("suid", 0o4755), ("shared", 0o666), ("sticky", 0o1777)):
            info = tarfile.TarInfo(name)
            info.size, info.mode = 1, mode
            tar.addfile(info, io.BytesIO(b"x"))
    apply(tmp_path / "layer", root, "layer")
    assert {p.name: oct(p.stat().st_mode & 0o7777) for p in root.iterdir()} == \
        {"suid": "0o755", "shared": "0o644", "sticky": "0o755"}


@pytest.mark.parametrize("members", [[("../escape", b"x")], [("out", "->/etc/passwd")], [("out", "->../../x")]])
def test_nothing_is_written_outside_the_target(tmp_path, members):
    root = tmp_path / "root"
    root.mkdir()
    tar_file(tmp_path / "layer", members)
    with pytest.raises(SourceError) as err:
        apply(tmp_path / "layer", root, "image@sha256:x: layer sha256:y")
    assert str(err.value).startswith("image@sha256:x: layer sha256:y: entry \"")
    assert not (tmp_path / "escape").exists()


def test_atomic_renames_only_on_success(tmp_path):
    dest = tmp_path / "dest"
    with pytest.raises(RuntimeError), unpack.atomic(dest) as partial:
        (partial / "half").write_text("x")
        raise RuntimeError("interrupted")
    assert not dest.exists() and not unpack.partial_of(dest).exists()
    dest.mkdir()  # an empty dest is taken over
    with unpack.atomic(dest) as partial:
        assert partial == tmp_path / "dest.partial"
        (partial / "whole").write_text("x")
    assert [p.name for p in dest.iterdir()] == ["whole"] and not partial.exists()

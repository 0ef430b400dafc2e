# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""module_source.unpack on its own: layers applied in order with OCI whiteouts, nothing written outside the target
(`..` and links out of it refused, absolute paths
kept inside), and `atomic` leaving either the whole dest or nothing."""

from __future__ import annotations

import io
import tarfile

import pytest
from module_source import SourceError, unpack


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
    unpack._extract(tmp_path / "l1", True, root, "l1")
    unpack._extract(tmp_path / "l2", True, root, "l2")
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    assert files == ["a", "a/y", "b", "b/new", "link"]
    assert (root / "link").readlink().as_posix() == "a/x"


def test_an_absolute_path_lands_inside_the_target(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    tar_file(tmp_path / "layer", [("/abs/file", b"x")])
    unpack._extract(tmp_path / "layer", True, root, "layer")
    assert (root / "abs" / "file").read_bytes() == b"x"


@pytest.mark.parametrize("members", [[("../escape", b"x")], [("out", "->/etc/passwd")], [("out", "->../../x")]])
def test_nothing_is_written_outside_the_target(tmp_path, members):
    root = tmp_path / "root"
    root.mkdir()
    tar_file(tmp_path / "layer", members)
    with pytest.raises(SourceError) as err:
        unpack._extract(tmp_path / "layer", True, root, "image@sha256:x: layer sha256:y")
    assert str(err.value).startswith("image@sha256:x: layer sha256:y: cannot unpack: ")
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

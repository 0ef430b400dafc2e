# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""No file or directory of a layer is setuid, setgid, sticky, group- or world-writable: a mode taken from a
source is masked to rwxr-xr-x, an Entry asking for more is refused in one line; symlinks are 0777. Checked on the
writer and on every layer of every image, read from the blobs of its OCI layout."""

from __future__ import annotations

import tarfile

import pytest
from imagekit import oci, staging
from imagekit.layer import Entry, write_layer

BEYOND = 0o7777 & ~0o755  # setuid, setgid, sticky, group and world write


def members(blob) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(blob, "r:gz") as tar:
        return {m.name: m for m in tar.getmembers()}


def test_no_layer_of_any_image_holds_a_special_or_writable_mode(images):
    checked, offenders = 0, []
    for name, built in sorted(images.items()):
        for layer in oci.read_image(built.layout).layers:
            for member in members(oci.blob_path(built.layout, layer.digest)).values():
                checked += 1
                if (member.mode != 0o777) if member.issym() else (member.mode & BEYOND):
                    offenders.append(f"{name} {layer.digest[:19]} {member.name} {member.mode:#o}")
    assert offenders == []
    assert checked > 10000  # the Python base alone holds thousands
    base = oci.read_image(images["cloud-controller-manager"].layout).layers[0]
    assert members(oci.blob_path(images["cloud-controller-manager"].layout, base.digest))["tmp"].mode == 0o755


def test_a_source_file_or_directory_gives_its_mode_masked(tmp_path):
    setuid = tmp_path / "setuid"
    setuid.write_bytes(b"#!/bin/false\n")
    setuid.chmod(0o4777)
    private = tmp_path / "private"
    private.write_bytes(b"kept private")
    private.chmod(0o600)
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    layer = write_layer([Entry("bin/setuid", source=setuid), Entry("etc/private", source=private),
                         Entry("tmp", source=sticky), Entry("bin/sh", link="/bin/setuid")], tmp_path / "blobs")
    got = members(tmp_path / "blobs" / layer.digest.partition(":")[2])
    assert {name: (m.type, m.mode) for name, m in got.items()} == {
        "bin": (tarfile.DIRTYPE, 0o755), "bin/setuid": (tarfile.REGTYPE, 0o755), "bin/sh": (tarfile.SYMTYPE, 0o777),
        "etc": (tarfile.DIRTYPE, 0o755), "etc/private": (tarfile.REGTYPE, 0o600), "tmp": (tarfile.DIRTYPE, 0o755)}


def test_a_staged_tree_gives_its_modes_masked(tmp_path):
    tree = tmp_path / "tree"
    (tree / "tmp").mkdir(parents=True)
    (tree / "tmp").chmod(0o1777)
    (tree / "shared").write_bytes(b"group and world writable")
    (tree / "shared").chmod(0o666)
    layer = write_layer(staging.entries(tree), tmp_path / "blobs")
    got = members(tmp_path / "blobs" / layer.digest.partition(":")[2])
    assert {name: m.mode for name, m in got.items()} == {"shared": 0o644, "tmp": 0o755}


@pytest.mark.parametrize(("entry", "mode"), [
    (Entry("usr/bin/wall", data=b"x", mode=0o2755), "0o2755"),
    (Entry("usr/bin/mount", data=b"x", mode=0o4755), "0o4755"),
    (Entry("tmp", mode=0o1777), "0o1777"),
    (Entry("etc/shared", data=b"x", mode=0o664), "0o664"),
])
def test_an_entry_asking_for_a_special_or_writable_mode_is_refused_and_nothing_is_written(tmp_path, entry, mode):
    blobs = tmp_path / "blobs"
    with pytest.raises(ValueError) as err:
        write_layer([Entry("etc/ok", data=b"fine"), entry], blobs)
    assert str(err.value) == (f"layer entry {entry.path!r}: mode {mode} goes beyond 0o755 (setuid, setgid, "
                              "sticky, group or world write)")
    assert not blobs.exists()

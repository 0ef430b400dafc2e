# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Nothing that never ships is in an image, read from every layer of every built image as tar members: what an
image takes from the tree (its own layer, the top one) holds nothing `shipping.never_ships` names, bytecode the
builder compiles beside a module it ships apart; no layer holds build code (build/, a stub generator, the bundle
recipe, the builders, pytest, test kits)."""

from __future__ import annotations

import tarfile
from pathlib import PurePosixPath

import pytest
from imagekit import oci
from shipping import never_ships

# Packages and modules that only build or test: none may be importable in an image.
BUILD_PACKAGES = {"imagekit", "bundle", "dvp_bundle", "stubs", "shipping", "module_release", "module_source",
                  "modlint", "chart", "grpc_tools", "PyInstaller", "pytest", "_pytest", "testkit", "sim", "demo",
                  "bench", "tests"}
BUILD_FILES = {"generate.py", "validator_build.py", "conftest.py"}


def layer_members(built) -> list[list[tarfile.TarInfo]]:
    out = []
    for layer in oci.read_image(built.layout).layers:
        with tarfile.open(oci.blob_path(built.layout, layer.digest), "r:gz") as tar:
            out.append(tar.getmembers())
    return out


def compiled_by_the_builder(name: str, names: set[str]) -> bool:
    """A __pycache__ directory, or a .pyc in one beside the module it compiles."""
    path = PurePosixPath(name)
    if path.name == "__pycache__":
        return True
    return path.parent.name == "__pycache__" and path.suffix == ".pyc" and \
        str(path.parent.parent / (path.name.split(".")[0] + ".py")) in names


def build_code(name: str) -> bool:
    parts = PurePosixPath(name).parts
    in_python = parts[:1] == ("app",) and len(parts) > 2  # app/src/<package>, app/lib/<package>
    return parts[0] == "build" or "pytest" in parts or "_pytest" in parts or \
        (in_python and (parts[2] in BUILD_PACKAGES or parts[2].removesuffix(".py") in BUILD_PACKAGES
                        or parts[-1] in BUILD_FILES))


def test_build_code_is_recognised():
    assert build_code("build/stubs/__init__.py") and build_code("app/src/dvp_csi/generate.py")
    assert build_code("app/lib/_pytest/python.py") and build_code("app/src/bundle/contents.py")
    assert not build_code("app/src/dvp_csi/generated/csi_pb2.py") and not build_code("app/lib/grpc/__init__.py")
    assert never_ships("candi/layouts/x/tests/") and never_ships("hooks/lib/testing/")
    assert never_ships("hooks/lib/testing/hostile.py") and not never_ships("hooks/lib/values.py")
    assert compiled_by_the_builder("app/src/x/__pycache__/a.cpython-313.pyc", {"app/src/x/a.py"})
    assert not compiled_by_the_builder("app/src/x/__pycache__/b.cpython-313.pyc", {"app/src/x/a.py"})


@pytest.mark.parametrize("name", ["capdvp-controller-manager", "cloud-controller-manager", "cloud-data-discoverer",
                                  "csi-driver", "snapshot-controller", "terraform-manager", "webhooks"])
def test_no_image_holds_what_never_ships_nor_build_code(images, name):
    layers = layer_members(images[name])
    own = layers[-1]
    names = {m.name for m in own}
    assert own, f"{name}: its own layer is empty"
    unshipped = [m.name for m in own if not compiled_by_the_builder(m.name, names)
                 and never_ships(m.name + ("/" if m.isdir() else ""))]
    assert unshipped == []
    assert [m.name for members in layers for m in members if build_code(m.name)] == []

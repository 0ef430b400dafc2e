# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CSI image ships the driver and dvp_common only: no test double, nothing that imports the test tree."""

from __future__ import annotations

import ast
from pathlib import Path

from imagekit import build, declarations

ROOT = Path(__file__).resolve().parents[2]
TEST_PACKAGES = {"pytest", "testkit", "sim", "demo", "bench", "chart", "modlint", "module_source", "csi_fake_os"}


def shipped() -> list[Path]:
    """Every .py file of the tree the image's own layer holds (images/csi-driver/image.yaml)."""
    return [src for src, _ in build.own_files(declarations.load("csi-driver")) if src.suffix == ".py"
            and "generated" not in src.parts]


def test_the_image_ships_no_test_double_and_nothing_from_the_test_tree():
    files = shipped()
    assert ROOT / "csi" / "dvp_csi" / "access.py" in files and ROOT / "images" / "dvp-common" / "dvp_common" / \
        "dvp" / "disks.py" in files
    doubles = [str(p.relative_to(ROOT)) for p in files if any(w in p.stem for w in ("memory", "fake", "stub"))]
    assert doubles == []
    imports = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            bad = {n.split(".")[0] for n in names} & TEST_PACKAGES
            if bad:
                imports[str(path.relative_to(ROOT))] = sorted(bad)
    assert imports == {}

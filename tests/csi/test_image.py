# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CSI image ships the driver and dvp_common only: no test double, nothing that imports the test tree."""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "images" / "csi-driver" / "werf.inc.yaml"
TEST_PACKAGES = {"pytest", "harness", "dvp_sim", "demo", "csi_env", "csi_sim", "csi_fake_os", "csi_loopdev"}


def shipped() -> list[Path]:
    """Every .py file the final image's git stanzas add (after their excludePaths)."""
    docs = [d for d in yaml.safe_load_all(RECIPE.read_text().replace("{{ .ModuleNamePrefix }}", "")
                                          .replace("{{ .ImageName }}", "csi-driver")
                                          .replace("{{ .ModuleDir }}", "")) if d]
    final = next(d for d in docs if d.get("image") == "csi-driver")
    files = []
    for stanza in final["git"]:
        src = ROOT / stanza["add"].lstrip("/")
        for path in sorted(src.rglob("*.py")):
            rel = str(path.relative_to(src))
            if not any(fnmatch.fnmatch(rel, pat) for pat in stanza.get("excludePaths") or []):
                files.append(path)
    return files


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

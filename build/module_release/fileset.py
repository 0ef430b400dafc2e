# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the module image holds: the one declaration of the module's file set, and the walk that applies it.

Deckhouse reads module.yaml, Chart.yaml, the chart (templates, charts), openapi/, crds/, hooks/ (every executable
file a hook), docs/ and images_digests.json from the unpacked image; dhctl's provider files are in candi/ and
node-manager's CAPI templates in capi/. The hooks that call an API import dvp_common from
images/dvp-common/dvp_common (hooks/lib/dvp.py), so that library ships at the same path. Tests, test support and
caches never ship."""

from __future__ import annotations

import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FILES = ("module.yaml", "Chart.yaml", ".helmignore", "oss.yaml")  # from the tree's root, to the image's root
TREES = ("hooks", "images/dvp-common/dvp_common", "templates", "openapi", "crds", "charts", "candi", "capi", "docs")
GENERATED = ("images_digests.json",)  # written by the release, not taken from the tree

# Never shipped, anywhere under TREES: test directories and files, test support kept beside the hooks, caches.
EXCLUDED_DIRS = ("tests", "__pycache__", ".terraform", ".pytest_cache", ".ruff_cache")
EXCLUDED_NAMES = ("*_test.py", "test_*.py", "conftest.py", "*.tftest.hcl", "*.pyc", "*.pyo", ".terraform.lock.hcl",
                  "*.tfstate", "*.tfstate.*", "*~", ".*.swp")
TEST_SUPPORT = ("hooks/lib/testing.py", "hooks/lib/hostile.py", "hooks/lib/migration_fixtures.py",
                "hooks/lib/tls_hook_cases.py")  # imported by *_test.py only (tests/release checks the hooks' imports)

# Bytecode shipped beside these trees' sources (every hook run is a new process; Deckhouse sets no cache dir).
BYTECODE_TREES = ("hooks", "images/dvp-common/dvp_common")


def shipped(rel: str) -> bool:
    """Whether a tree file (path relative to the root, "/"-separated) belongs in the module image."""
    parts = rel.split("/")
    if rel in FILES:
        return True
    if not any(rel.startswith(tree + "/") for tree in TREES):
        return False
    if set(parts[:-1]) & set(EXCLUDED_DIRS) or rel in TEST_SUPPORT:
        return False
    return not any(fnmatch.fnmatchcase(parts[-1], pattern) for pattern in EXCLUDED_NAMES)


def tree_files(root: Path = ROOT) -> list[str]:
    """The tree's files that ship, sorted; a missing declared file or tree is an error of the declaration."""
    out = []
    for name in FILES:
        if not (root / name).is_file():
            raise FileNotFoundError(f"module file {name} is missing from {root}")
        out.append(name)
    for tree in TREES:
        top = root / tree
        if not top.is_dir():
            raise FileNotFoundError(f"module tree {tree}/ is missing from {root}")
        out += [p.relative_to(root).as_posix() for p in top.rglob("*")
                if (p.is_file() or p.is_symlink()) and shipped(p.relative_to(root).as_posix())]
    return sorted(out)

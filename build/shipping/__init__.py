# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What never ships, in any image or in the module: the one predicate imagekit (a package's files), the bundle
(candi's trees) and the module release (module_release.fileset) apply to the tree's files.

Never shipped: tests (test directories, test files, the test support kept beside the hooks), caches and what a
local run leaves behind (bytecode: the builders compile their own; .terraform, OpenTofu state and plans, editor
files), and build code (build/: the builders, the stub generator, the bundle recipe)."""

from __future__ import annotations

from fnmatch import fnmatchcase

TEST_DIRS = frozenset({"tests"})
TEST_NAMES = ("*_test.py", "test_*.py", "conftest.py", "*.tftest.hcl")
# the hooks' test support, imported by *_test.py only (tests/release checks the hooks' imports)
TEST_SUPPORT_DIRS = ("hooks/lib/testing/",)
CACHE_DIRS = frozenset({"__pycache__", ".pytest_cache", ".ruff_cache", ".terraform"})
CACHE_NAMES = ("*.pyc", "*.pyo", "*.lock.hcl", "*.tfstate", "*.tfstate.*", "*.tfplan", "*.tfvars.json", "*~",
               ".*.swp")
BUILD_CODE = frozenset({"build"})  # top-level folders of the tree


def never_ships(rel: str) -> bool:
    """Whether a file of the tree (its path relative to the tree's root, "/"-separated; a directory's path ends
    in "/") never ships."""
    *dirs, name = rel.split("/")
    if dirs and dirs[0] in BUILD_CODE or rel.startswith(TEST_SUPPORT_DIRS):
        return True
    if (TEST_DIRS | CACHE_DIRS) & set(dirs):
        return True
    return any(fnmatchcase(name, pattern) for pattern in (*TEST_NAMES, *CACHE_NAMES))

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every hook is a new Python process. Without bytecode on disk it compiles the SDK, dotmap, dictdiffer, yaml and
our lib on every run, which costs more than the hook's whole time budget; and these machines export
PYTHONDONTWRITEBYTECODE, so nothing would ever cache it. `make setup` compiles both (uv --compile-bytecode,
`make bytecode`); this guards those steps."""

import glob
import importlib.util
import os

import pytest

LIB = os.path.dirname(os.path.abspath(__file__))
HOOK_IMPORTS = ("deckhouse.hook", "deckhouse.values", "dotmap", "dictdiffer", "yaml", "yaml.constructor")


def _fresh(source: str) -> bool:
    cached = importlib.util.cache_from_source(source)
    return os.path.exists(cached) and os.stat(cached).st_mtime >= os.stat(source).st_mtime


@pytest.mark.parametrize("module", HOOK_IMPORTS)
def test_hook_dependencies_are_compiled(module):
    source = importlib.util.find_spec(module).origin
    assert _fresh(source), f"{module} has no bytecode beside {source}: install with `uv pip install --compile-bytecode`"


def test_hook_lib_is_compiled():
    # Existence, not freshness: a file edited since `make bytecode` is the normal state while developing.
    missing = [os.path.basename(p) for p in glob.glob(os.path.join(LIB, "*.py"))
               if not p.endswith("_test.py") and not os.path.exists(importlib.util.cache_from_source(p))]
    assert missing == [], f"hooks/lib without bytecode: {missing}; run `make bytecode`"

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""bench/hooks.py builds a steady-state case for every hook from the hooks' own test support: a move of that
support, or a new hook, fails here in `make test` rather than only in `make bench`."""

from __future__ import annotations

from pathlib import Path

from bench import hooks as bench_hooks

HOOKS = Path(__file__).resolve().parents[2] / "hooks"


def test_every_hook_has_a_steady_state_case():
    cases = bench_hooks._cases()
    names = {p.stem for p in HOOKS.glob("*.py") if not p.stem.endswith("_test") and p.stem != "__init__"}
    assert names - set(cases) == set()
    for name, (_objects, values) in cases.items():  # what a steady cluster has: the provider set
        assert values["cloudProviderDvp"]["provider"]["parameters"]["namespace"], name

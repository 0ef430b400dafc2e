# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Upstream's switch spelling renders what ours does: `nodes.enabled: false` is `nodes.disabled: true`, and so for
storage (read in deckhouse/deckhouse modules/030-cloud-provider-dvp/openapi/config-values.yaml@0a1f9d68f159a37462a2
99fc355385453aaf8d59: nodes.enabled and storage.enabled, booleans defaulting to true). The two spellings combine in
one place, templates/_helpers.tpl "dvp.switch_on"; the schema refuses them contradicting
(tests/openapi/test_upstream_settings.py)."""

from __future__ import annotations

import pytest
from chart import matrix
from chart.render import render_values


def render(part: str, switch: dict) -> list[dict]:
    # example_values gives `disabled: false`; None removes it, so only the switch given here is set.
    return render_values(matrix.build({part: {"disabled": None, "enabled": None, **switch}}))


@pytest.mark.parametrize("part", ["nodes", "storage"])
def test_enabled_false_renders_as_disabled_true(part):
    ours = render(part, {"disabled": True})
    assert ours != render(part, {})  # the switch does something
    assert render(part, {"enabled": False}) == ours
    assert render(part, {"enabled": False, "disabled": True}) == ours


@pytest.mark.parametrize("part", ["nodes", "storage"])
def test_enabled_true_and_unset_render_as_disabled_false(part):
    on = render(part, {"disabled": False})
    assert render(part, {}) == on
    assert render(part, {"enabled": True}) == on
    assert render(part, {"enabled": True, "disabled": False}) == on

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The runbook of docs/MONITORING.md and its Russian twin: every alert the maximal configuration renders has its
text in both (a `### <alert>` section, or a row of the Deployment table), and neither names an alert that does not
exist. The metric table is checked against what the components export in tests/e2e/test_clean_run.py."""

from __future__ import annotations

import pytest
from chart.render import ROOT

from testkit import monitoring as mk

DOCS = ("MONITORING.md", "MONITORING.ru.md")


@pytest.mark.parametrize("doc", DOCS)
def test_every_alert_has_runbook_text(doc):
    rendered = sorted(r["alert"] for g in mk.rule_groups(mk.render()) for r in g["rules"] if "alert" in r)
    assert sorted(mk.runbook_alerts((ROOT / "docs" / doc).read_text())) == rendered


def test_the_parser_reads_sections_and_first_cells():
    text = "## Alerts\n### D8A\ntext with D8Nope\n| `D8B`, `D8C` | `D8NotFirst` |\n| alert | D |\n#### D8Deeper\n"
    assert mk.runbook_alerts(text) == ["D8A", "D8B", "D8C"]


def test_both_languages_document_the_same_metrics():
    en, ru = (mk.documented_families((ROOT / "docs" / doc).read_text()) for doc in DOCS)
    assert en == ru and len(en) >= 20
    table = "| `a_total`, `b_*` | `not_first` |\n| `D8Alert` | y |\n| family | labels |\n"
    assert mk.documented_families(table) == {"a_total", "b_*"}


def test_both_languages_document_the_same_labels():
    en, ru = (mk.documented_labels((ROOT / "docs" / doc).read_text()) for doc in DOCS)
    assert en == ru
    assert en["dvp_csi_volume_provisioning_duration_seconds"] == {"source"}
    assert en["dvp_csi_attachment_pending_seconds"] == {"vmbda", "volume", "vm", "phase"}
    assert en["capdvp_machine_provisioning_duration_seconds"] == set()

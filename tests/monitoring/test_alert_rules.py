# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""`promtool test rules` over the rendered PrometheusRule: each alert fires on the failure it describes, with its
labels and its annotations as Alertmanager would get them, and stays silent on the healthy series."""

from __future__ import annotations

import re
import subprocess

import pytest
import yaml

from testkit import monitoring as mk

from .rule_cases import EVAL, cases


@pytest.fixture(scope="module")
def groups() -> list[dict]:
    return mk.rule_groups(mk.render())


def _rules(groups: list[dict]) -> list[dict]:
    return [r for g in groups for r in g["rules"] if "alert" in r]


def expand(text: str, labels: dict[str, str]) -> str:
    return re.sub(r"\{\{\s*\$labels\.(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), text)


def rule_tests(groups: list[dict]) -> list[dict]:
    tests = []
    for rule in _rules(groups):
        case = cases(_rules(groups))[rule["alert"]]
        labels = {**rule.get("labels", {}), **case.labels}
        fired = {"exp_labels": labels, "exp_annotations": {k: expand(v, labels)
                                                           for k, v in rule.get("annotations", {}).items()}}
        tests.append({"name": f"{rule['alert']} fires", "interval": "1m", "input_series": case.failing,
                      "alert_rule_test": [{"eval_time": EVAL, "alertname": rule["alert"], "exp_alerts": [fired]}]})
        for why, series in (("healthy", case.healthy), *case.also_silent):
            tests.append({"name": f"{rule['alert']} silent: {why}", "interval": "1m", "input_series": series,
                          "alert_rule_test": [{"eval_time": EVAL, "alertname": rule["alert"], "exp_alerts": []}]})
    return tests


def test_every_alert_has_a_failure_and_a_healthy_case(groups):
    alerts = {r["alert"] for r in _rules(groups)}
    assert set(cases(_rules(groups))) == alerts
    assert len(alerts) == 23  # 3 configuration, 7 Deployments x (Down, Absent), CSI node, 2 storage, 3 discovery


def test_promtool_test_rules(groups, tmp_path):
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": groups}))
    tests = rule_tests(groups)
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump({"rule_files": ["rules.yaml"], "evaluation_interval": "1m",
                                                          "tests": tests}))
    check = subprocess.run([str(mk.promtool()), "check", "rules", "rules.yaml"], cwd=tmp_path, capture_output=True,
                           text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    run = subprocess.run([str(mk.promtool()), "test", "rules", "tests.yaml"], cwd=tmp_path, capture_output=True,
                         text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "SUCCESS" in run.stdout + run.stderr
    assert len(tests) == 23 * 2 + 6  # the silent extras: 4 Down while credentials miss, 2 discovery


def test_a_broken_rule_fails_promtool(groups, tmp_path):
    """The harness itself: an alert that never fires is caught (its firing test fails)."""
    broken = [{**g, "rules": [{**r, "expr": "vector(0) > 1"} if r.get("alert") == "D8CloudProviderDVPMigrationPending"
                              else r for r in g["rules"]]} for g in groups]
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": broken}))
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump({"rule_files": ["rules.yaml"], "evaluation_interval": "1m",
                                                          "tests": rule_tests(groups)}))
    run = subprocess.run([str(mk.promtool()), "test", "rules", "tests.yaml"], cwd=tmp_path, capture_output=True,
                         text=True, check=False)
    assert run.returncode == 1
    assert "D8CloudProviderDVPMigrationPending fires" in run.stdout + run.stderr

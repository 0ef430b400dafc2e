# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the module ships for monitoring, as tests read it: the rendered alert rules and dashboards, the metric
names their PromQL reads, the names a scrape exports, and promtool (`.bin/promtool`, tools/promtool) to check both.

Metric names come from a PromQL tokenizer: string literals, label matchers `{...}`, ranges `[...]` and grouping
lists (`by (...)`, `on (...)` ...) are removed, then every identifier not called as a function and not a keyword is
a metric name. promtool parses every expression too (`check rules`), so a query the tokenizer reads wrongly cannot
also be valid PromQL unnoticed: the tests pin the tokenizer on the tricky forms."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml
from chart import matrix
from chart.render import ROOT, render_values
from prometheus_client.parser import text_string_to_metric_families

PROMTOOL = ROOT / ".bin" / "promtool"
# Series from other exporters: kube-state-metrics runs in every Deckhouse cluster (the prometheus module).
KUBE_STATE_METRICS = frozenset({"kube_deployment_status_replicas_available", "kube_daemonset_status_number_unavailable",
                                "kube_pod_status_ready"})
KEYWORDS = frozenset({"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
                      "offset", "inf", "nan", "atan2"})
# Grafana's interval variables, as Grafana substitutes them before the query reaches Prometheus.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "30s", "$__range": "1h"}


class PromtoolMissing(RuntimeError):
    pass


def promtool() -> Path:
    if not PROMTOOL.exists():
        raise PromtoolMissing(f"{PROMTOOL} is missing: run `make tools` (tools/build promtool)")
    return PROMTOOL


def render() -> list[dict[str, Any]]:
    """The maximal case: every component, and the prometheus-crd module, so the dashboards render too."""
    return render_values(matrix.case("maximal"))


def rule_groups(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [g for o in objects if o["kind"] == "PrometheusRule" for g in o["spec"]["groups"]]


def dashboards(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: json.loads(o["spec"]["definition"]) for o in objects
            if o["kind"] == "GrafanaDashboardDefinition"}


def panel_queries(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(panel title, expression as Prometheus receives it) for every target of every panel, rows included."""
    out = []
    stack = list(dashboard.get("panels") or [])
    while stack:
        panel = stack.pop(0)
        stack.extend(panel.get("panels") or [])
        for target in panel.get("targets") or []:
            expr = target["expr"]
            for var, value in GRAFANA_VARIABLES.items():
                expr = expr.replace(var, value)
            out.append((panel["title"], expr))
    return out


def rule_queries(groups: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(r.get("alert") or r.get("record"), r["expr"]) for g in groups for r in g["rules"]]


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_IDENT = re.compile(r"(?<![\w:.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?")


def metric_names(expr: str) -> set[str]:
    text = _STRING.sub('""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = _GROUPING.sub(" ", text)
    text = re.sub(r"(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?[a-z]*", " ", text, flags=re.IGNORECASE)  # numbers, durations
    return {m.group(1) for m in _IDENT.finditer(text) if not m.group(2) and m.group(1).lower() not in KEYWORDS}


def exported_names(text: str) -> set[str]:
    """Every series name a scrape can answer: the samples, and each declared family's own series names (a
    labelled family with no child yet still exists: a phase or a verdict not seen yet)."""
    names: set[str] = set()
    suffixes = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_sum", "_count", "_created"),
                "summary": ("_sum", "_count", "_created"), "gauge": ("",), "unknown": ("",), "info": ("_info",)}
    for family in text_string_to_metric_families(text):
        names.update(s.name for s in family.samples)
        names.update(family.name + s for s in suffixes.get(family.type, ("",)))
    return names


def hook_metric_names() -> set[str]:
    """The metrics the hooks write (their METRIC constants: hooks/*.py, one per hook that reports one)."""
    found = set()
    for path in sorted((ROOT / "hooks").glob("*.py")):
        found.update(re.findall(r'^METRIC = "([a-z_:][a-z0-9_:]*)"', path.read_text(), flags=re.MULTILINE))
    return found


def check_syntax(queries: list[tuple[str, str]]) -> str:
    """promtool's verdict on every expression (as recording rules of one group): "" when all parse."""
    rules = {"groups": [{"name": "queries", "rules": [{"record": f"q:{i}", "expr": e}
                                                      for i, (_, e) in enumerate(queries)]}]}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "queries.yaml"
        path.write_text(yaml.safe_dump(rules))
        proc = subprocess.run([str(promtool()), "check", "rules", str(path)], capture_output=True, text=True,
                              check=False)
    return "" if proc.returncode == 0 else (proc.stdout + proc.stderr)


def runbook_alerts(text: str) -> list[str]:
    """The alerts docs/MONITORING*.md gives text for: its `### <alert>` sections and the alert names in the first
    column of a table (the Deployment alerts)."""
    alerts: list[str] = []
    for line in text.splitlines():
        if line.startswith("### D8"):
            alerts.append(line[4:].strip())
        elif line.startswith("| `D8"):
            alerts.extend(re.findall(r"`(D8\w+)`", line.split("|")[1]))
    return alerts


def documented_families(text: str) -> set[str]:
    """The metric names (or `<prefix>*`) in the first column of the metric table of docs/MONITORING*.md: the
    rows whose first cell starts with a lower-case name."""
    return {name for line in text.splitlines() if re.match(r"\| `[a-z]", line)
            for name in re.findall(r"`([a-z_:*]+)`", line.split("|")[1])}


def documented_labels(text: str) -> dict[str, set[str]]:
    """family -> its label names, from the second column of the metric table (the names before any ":" or "(",
    which start the cell's prose); the `<prefix>*` rows say no labels of their own."""
    out = {}
    for line in text.splitlines():
        if not re.match(r"\| `[a-z]", line):
            continue
        cells = line.split("|")
        labels = set(re.findall(r"`([a-z_]+)`", re.split(r"[:(]", cells[2], maxsplit=1)[0]))
        for name in re.findall(r"`([a-z_:*]+)`", cells[1]):
            if not name.endswith("*"):
                out[name] = labels
    return out


def lint_metrics(text: str) -> str:
    """`promtool check metrics` (Prometheus' naming lint: _total counters, unit suffixes, ...) on one scrape."""
    proc = subprocess.run([str(promtool()), "check", "metrics"], input=text, capture_output=True, text=True,
                          check=False)
    return "" if proc.returncode == 0 else (proc.stdout + proc.stderr)

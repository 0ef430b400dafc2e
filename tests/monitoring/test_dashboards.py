# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The dashboards as Deckhouse receives them: one GrafanaDashboardDefinition per monitoring/grafana-dashboards
file (lib-helm's names and folder), only where the prometheus-crd module serves the kind, each a Grafana
dashboard whose every query is valid PromQL. The metric names the queries read (monitoring_kit.metric_names) are
what tests/e2e/test_clean_run.py checks against the scraped components: its tokenizer is pinned here."""

from __future__ import annotations

import json

import pytest
from chart import matrix
from chart.render import ROOT, render_values

from testkit import monitoring as mk

FOLDER = "Kubernetes Cluster"
NAMES = {"d8-cloud-provider-dvp-kubernetes-cluster-cloud-provider-dvp",
         "d8-cloud-provider-dvp-kubernetes-cluster-cloud-provider-dvp-controllers",
         "d8-cloud-provider-dvp-kubernetes-cluster-cloud-provider-dvp-csi"}


@pytest.fixture(scope="module")
def objects() -> list[dict]:
    return mk.render()


def test_one_definition_per_dashboard_file_named_and_foldered_as_lib_helm_does(objects):
    found = [o for o in objects if o["kind"] == "GrafanaDashboardDefinition"]
    files = sorted((ROOT / "monitoring" / "grafana-dashboards").rglob("*.json"))
    assert len(found) == len(files) == 3
    assert {o["metadata"]["name"] for o in found} == NAMES
    for o in found:
        assert o["apiVersion"] == "deckhouse.io/v1"
        assert "namespace" not in o["metadata"]  # cluster-scoped
        assert o["metadata"]["labels"] == {"heritage": "deckhouse", "module": "cloud-provider-dvp",
                                           "prometheus.deckhouse.io/grafana-dashboard": ""}
        assert o["spec"]["folder"] == FOLDER
    definitions = {json.loads(p.read_text())["uid"]: json.loads(p.read_text()) for p in files}
    assert {d["uid"]: d for d in mk.dashboards(objects).values()} == definitions  # the file, verbatim


def test_no_definition_without_the_prometheus_crd_module():
    values = matrix.case("defaults")
    assert "prometheus-crd" not in values["global"]["enabledModules"]
    objects = render_values(values)
    assert [o for o in objects if o["kind"] == "PrometheusRule"]  # monitoring on, the kind not served
    assert [o for o in objects if o["kind"] == "GrafanaDashboardDefinition"] == []


def test_every_dashboard_is_a_grafana_dashboard_with_the_module_datasource(objects):
    uids = []
    for name, dash in sorted(mk.dashboards(objects).items()):
        uids.append(dash["uid"])
        assert dash["title"].startswith("Cloud provider DVP"), name
        assert dash["templating"]["list"][0] == {"name": "ds_prometheus", "type": "datasource",
                                                 "query": "prometheus", "label": "Prometheus", "current": {}}, name
        panels = dash["panels"]
        assert len({p["id"] for p in panels}) == len(panels), name
        for panel in panels:
            assert panel["datasource"] == {"type": "prometheus", "uid": "$ds_prometheus"}, (name, panel["title"])
            assert panel["targets"], (name, panel["title"])
            assert len({t["refId"] for t in panel["targets"]}) == len(panel["targets"]), (name, panel["title"])
            for target in panel["targets"]:
                assert 'namespace="d8-cloud-provider-dvp"' in target["expr"], (name, panel["title"])
    assert len(set(uids)) == len(uids) == 3


def test_every_query_and_rule_is_valid_promql(objects):
    queries = [(f"alert {n}", e) for n, e in mk.rule_queries(mk.rule_groups(objects))]
    for dash, definition in sorted(mk.dashboards(objects).items()):
        queries += [(f"{dash}: {title}", e) for title, e in mk.panel_queries(definition)]
    assert mk.check_syntax(queries) == ""
    assert "parse error" in mk.check_syntax([("broken", "sum(rate(x[1m])")])  # the check can fail


@pytest.mark.parametrize(("expr", "names"), [
    ('sum by (job, code) (rate(dvp_client_request_errors_total{namespace="ns", code!="200"}[5m]))',
     {"dvp_client_request_errors_total"}),
    ("histogram_quantile(0.99, sum by (le) (rate(a_seconds_bucket[1m])))", {"a_seconds_bucket"}),
    ('count(x{phase="Running"} > 0) or vector(0)', {"x"}),
    ("max(a) > 0 unless on() max(b) > 0", {"a", "b"}),
    ("time() - max(last_success_timestamp_seconds)", {"last_success_timestamp_seconds"}),
    ('a{l="sum(b)"} offset 5m', {"a"}),  # a string is no call, a duration no name
    ("increase(c_total[1h]) * 1e3", {"c_total"}),
    ("max without (pod, instance) (g) / ignoring(x) group_left h", {"g", "h"}),
    ("absent(up{job=\"x\"}) == 1", {"up"}),
])
def test_the_tokenizer_reads_the_metric_names_a_query_reads(expr, names):
    assert mk.metric_names(expr) == names

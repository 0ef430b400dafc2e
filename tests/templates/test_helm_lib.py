# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""charts/helm_lib on its own: a throwaway chart that includes one helper per template, rendered by the real Helm
engine, so each helper's output is asserted exactly (names and argument shapes as in deckhouse/lib-helm)."""

from __future__ import annotations

import shutil

import helm_python
import pytest
import yaml
from chart.render import ROOT

CHART = """apiVersion: v2
name: test-module
version: 0.0.1
dependencies:
- name: deckhouse_lib_helm
  version: 1.0.0
"""


def render(tmp_path, template: str, values: dict) -> dict:
    return yaml.safe_load(render_text(tmp_path, template, values)) or {}


def render_text(tmp_path, template: str, values: dict, files: dict[str, str] | None = None) -> str:
    """The rendered text of `template` in the throwaway chart, which also holds `files` (chart path -> text)."""
    chart = tmp_path / "chart"
    if not chart.exists():
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(CHART)
        shutil.copytree(ROOT / "charts" / "helm_lib", chart / "charts" / "helm_lib")
    for path, text in (files or {}).items():
        (chart / path).parent.mkdir(parents=True, exist_ok=True)
        (chart / path).write_text(text)
    (chart / "templates" / "t.yaml").write_text(template)
    base = {"global": {"discovery": {}, "modulesImages": {"registry": {"base": "r.example.com/d8"},
                                                          "digests": {"testModule": {"app": "sha256:aa"},
                                                                      "common": {"kubeRbacProxy": "sha256:bb"}}}},
            "testModule": {}}
    for key, value in values.items():
        base[key] = {**base.get(key, {}), **value}
    with helm_python.Chart.load(str(chart)) as ch:
        out = ch.render(base, name="r", namespace="d8-test-module")
    return out["test-module/templates/t.yaml"]


def test_labels_and_images(tmp_path):
    out = render(tmp_path, """metadata:
  {{- include "helm_lib_module_labels" (list . (dict "app" "x")) | nindent 2 }}
image: {{ include "helm_lib_module_image" (list . "app") }}
proxy: {{ include "helm_lib_module_common_image" (list . "kubeRbacProxy") }}
""", {})
    assert out == {"metadata": {"labels": {"heritage": "deckhouse", "module": "test-module", "app": "x"}},
                   "image": "r.example.com/d8@sha256:aa", "proxy": "r.example.com/d8@sha256:bb"}


def test_missing_digest_fails(tmp_path):
    with pytest.raises(helm_python.HelmError, match="Image testModule.nope has no digest"):
        render(tmp_path, '{{ include "helm_lib_module_image" (list . "nope") }}', {})


@pytest.mark.parametrize(("module", "glob", "discovery", "expected"), [
    ({"highAvailability": True}, {"highAvailability": False}, {}, "ha-yes"),
    ({"highAvailability": False}, {"highAvailability": True}, {}, "ha-no"),
    ({}, {"highAvailability": True}, {}, "ha-yes"),
    ({}, {}, {"clusterControlPlaneIsHighlyAvailable": True}, "ha-yes"),
    ({}, {}, {}, "ha-no"),
])
def test_is_ha_to_value_precedence(tmp_path, module, glob, discovery, expected):
    out = render(tmp_path, 'ha: {{ include "helm_lib_is_ha_to_value" (list . "ha-yes" "ha-no") }}',
                 {"testModule": module, "global": {**glob, "discovery": discovery}})
    assert out == {"ha": expected}


@pytest.mark.parametrize(("strategy", "discovery", "module", "expected"), [
    ("master", {"clusterMasterCount": 3}, {}, {"node-role.kubernetes.io/control-plane": ""}),
    ("master", {"d8SpecificNodeCountByRole": {"master": 1}}, {}, {"node-role.deckhouse.io/control-plane": ""}),
    ("system", {"d8SpecificNodeCountByRole": {"system": 2}}, {}, {"node-role.deckhouse.io/system": ""}),
    ("system", {"d8SpecificNodeCountByRole": {"system": 2, "testModule": 1}}, {},
     {"node-role.deckhouse.io/test-module": ""}),
    ("system", {"d8SpecificNodeCountByRole": {"system": 2}}, {"nodeSelector": {"a": "b"}}, {"a": "b"}),
    ("system", {}, {}, None),
])
def test_node_selector(tmp_path, strategy, discovery, module, expected):
    out = render(tmp_path, f'{{{{- include "helm_lib_node_selector" (tuple . "{strategy}") }}}}',
                 {"global": {"discovery": discovery}, "testModule": module})
    assert out.get("nodeSelector") == expected


def test_tolerations_add_and_remove_sets(tmp_path):
    out = render(tmp_path, '{{- include "helm_lib_tolerations" (tuple . "system" "without-storage-problems" '
                           '"with-node-problems") }}', {})
    assert out["tolerations"] == [
        {"key": "dedicated.deckhouse.io", "operator": "Equal", "value": "test-module"},
        {"key": "dedicated.deckhouse.io", "operator": "Equal", "value": "system"},
    ] + [{"key": f"node.kubernetes.io/{k}"} for k in (
        "not-ready", "out-of-disk", "memory-pressure", "disk-pressure", "pid-pressure", "unreachable",
        "network-unavailable")]
    wildcard = render(tmp_path, '{{- include "helm_lib_tolerations" (tuple . "wildcard") }}', {})
    assert wildcard == {"tolerations": [{"operator": "Exists"}]}


def test_cloud_provider_uninitialized_only_before_bootstrap(tmp_path):
    template = '{{- include "helm_lib_tolerations" (tuple . "custom" "with-cloud-provider-uninitialized") }}'
    before = render(tmp_path, template, {"global": {"clusterIsBootstrapped": False}})
    after = render(tmp_path, template, {"global": {"clusterIsBootstrapped": True}})
    assert before["tolerations"] == [{"key": "node.cloudprovider.kubernetes.io/uninitialized", "operator": "Exists"}]
    assert after["tolerations"] is None


def test_unknown_strategy_and_priority_class_fail(tmp_path):
    with pytest.raises(helm_python.HelmError, match='unknown strategy "everywhere"'):
        render(tmp_path, '{{- include "helm_lib_tolerations" (tuple . "everywhere") }}', {})
    with pytest.raises(helm_python.HelmError, match='unknown priority class "urgent"'):
        render(tmp_path, '{{- include "helm_lib_priority_class" (tuple . "urgent") }}', {})


def test_replicas_for_ha(tmp_path):
    template = '{{- include "helm_lib_deployment_on_master_strategy_and_replicas_for_ha" . }}'
    ha = render(tmp_path, template, {"global": {"highAvailability": True, "discovery": {"clusterMasterCount": 3}}})
    assert ha == {"replicas": 3, "strategy": {"type": "RollingUpdate",
                                              "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 2}}}
    single = render(tmp_path, template, {"global": {"highAvailability": False}})
    assert single == {"replicas": 1, "strategy": {"type": "RollingUpdate",
                                                  "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}}
    anywhere = render(tmp_path, '{{- include "helm_lib_deployment_strategy_and_replicas_for_ha" . }}',
                      {"global": {"highAvailability": True}})
    assert anywhere["replicas"] == 2


def test_security_contexts_and_ephemeral_storage(tmp_path):
    out = render(tmp_path, """pod:
  {{- include "helm_lib_module_pod_security_context_run_as_user_nobody" . | nindent 2 }}
container:
  {{- include (print "helm_lib_module_container_security_context_read_only_root_filesystem"
                     "_capabilities_drop_all_pss_restricted") . | nindent 2 }}
requests:
  {{- include "helm_lib_module_ephemeral_storage_logs_with_extra" 10 | nindent 2 }}
""", {})
    assert out == {
        "pod": {"securityContext": {"runAsNonRoot": True, "runAsUser": 65534, "runAsGroup": 65534}},
        "container": {"securityContext": {"readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False,
                                          "capabilities": {"drop": ["ALL"]},
                                          "seccompProfile": {"type": "RuntimeDefault"}}},
        "requests": {"ephemeral-storage": "60Mi"},
    }


RULES = '{{- include "helm_lib_prometheus_rules" (list . "d8-test-module") }}'
RULE_FILES = {
    "monitoring/prometheus-rules/group_one.yaml": """# a comment
- name: one
  rules:
  - alert: Down
    expr: up == 0
    for: __SCRAPE_INTERVAL_X_2__
    annotations:
      d8_ignore_on_update: "true"
      summary: down
  - record: job:up:sum
    expr: sum by (job) (up)
""",
    "monitoring/prometheus-rules/nested/more.rules.tpl": """- name: {{ .Chart.Name }}.nested
  rules:
  - alert: Slow
    expr: vector(1) > {{ .Values.testModule.limit }}
    for: __SCRAPE_INTERVAL__
""",
    "monitoring/prometheus-rules/empty.tpl": "{{- if false }}\n- name: never\n  rules: []\n{{- end }}\n",
    "monitoring/prometheus-rules/notes.txt": "not a rule file\n",
}
RULE_LABELS = {"heritage": "deckhouse", "module": "test-module", "app": "prometheus", "prometheus": "main",
               "component": "rules"}


def rule_objects(tmp_path, values: dict, template: str = RULES, files: dict[str, str] | None = None) -> list[dict]:
    text = render_text(tmp_path, template, values, RULE_FILES if files is None else files)
    return [doc for doc in yaml.safe_load_all(text) if doc]


def prometheus_rule(name: str, groups: list[dict]) -> dict:
    return {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
            "metadata": {"name": name, "namespace": "d8-test-module", "labels": RULE_LABELS},
            "spec": {"groups": groups}}


ONE = {"name": "one", "rules": [
    {"alert": "Down", "expr": "(up == 0) and ON() ((max(d8_is_updating) != 1) or ON() absent(d8_is_updating))",
     "for": "60s", "annotations": {"d8_ignore_on_update": "true", "summary": "down"}},
    {"record": "job:up:sum", "expr": "sum by (job) (up)"}]}


def test_prometheus_rules_one_object_per_file_named_as_lib_helm_does(tmp_path):
    objects = rule_objects(tmp_path, {"global": {"enabledModules": ["operator-prometheus-crd"]},
                                      "testModule": {"limit": 5}})
    assert objects == [
        prometheus_rule("test-module-group-one", [ONE]),
        prometheus_rule("test-module-nested-more-rules", [
            {"name": "test-module.nested", "rules": [{"alert": "Slow", "expr": "vector(1) > 5", "for": "30s"}]}]),
    ]


def test_prometheus_rules_scrape_interval_and_file_list(tmp_path):
    values = {"global": {"enabledModules": ["operator-prometheus-crd"], "discovery": {"prometheusScrapeInterval": 15}},
              "testModule": {"limit": 5}}
    template = ('{{- include "helm_lib_prometheus_rules" '
                '(list . "d8-test-module" (list "monitoring/prometheus-rules/group_one.yaml")) }}')
    assert rule_objects(tmp_path, values, template) == [
        prometheus_rule("test-module-group-one", [{**ONE, "rules": [{**ONE["rules"][0], "for": "30s"},
                                                                   ONE["rules"][1]]}])]


def test_prometheus_rules_only_with_the_operator_prometheus_crd_module(tmp_path):
    assert rule_objects(tmp_path, {"global": {"enabledModules": ["prometheus-crd"]}}) == []
    assert rule_objects(tmp_path, {}) == []  # no enabledModules at all


def test_prometheus_rules_a_file_that_is_no_yaml_fails_naming_it(tmp_path):
    with pytest.raises(helm_python.HelmError, match="monitoring/prometheus-rules/bad.yaml: error converting YAML"):
        rule_objects(tmp_path, {"global": {"enabledModules": ["operator-prometheus-crd"]}},
                     files={"monitoring/prometheus-rules/bad.yaml": "- name: [unclosed\n"})

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""charts/helm_lib on its own: a throwaway chart that includes one helper per template, rendered by the real Helm
engine, so each helper's output is asserted exactly (names and argument shapes as in deckhouse/lib-helm)."""

from __future__ import annotations

import shutil

import helm_python
import pytest
import yaml
from harness.render import ROOT

CHART = """apiVersion: v2
name: test-module
version: 0.0.1
dependencies:
- name: deckhouse_lib_helm
  version: 1.0.0
"""


def render(tmp_path, template: str, values: dict) -> dict:
    chart = tmp_path / "chart"
    if not chart.exists():
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(CHART)
        shutil.copytree(ROOT / "charts" / "helm_lib", chart / "charts" / "helm_lib")
    (chart / "templates" / "t.yaml").write_text(template)
    base = {"global": {"discovery": {}, "modulesImages": {"registry": {"base": "r.example.com/d8"},
                                                          "digests": {"testModule": {"app": "sha256:aa"},
                                                                      "common": {"kubeRbacProxy": "sha256:bb"}}}},
            "testModule": {}}
    for key, value in values.items():
        base[key] = {**base.get(key, {}), **value}
    with helm_python.Chart.load(str(chart)) as ch:
        out = ch.render(base, name="r", namespace="d8-test-module")
    return yaml.safe_load(out["test-module/templates/t.yaml"]) or {}


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

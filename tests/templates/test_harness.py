# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The render and validation harness itself: it must catch what it claims to catch."""

from __future__ import annotations

import copy
import re
import subprocess
import sys

import pytest
import yaml
from chart.render import ROOT, RenderError, deep_merge, render_module

from testkit.harness.objects import find
from testkit.harness.validate import validate_object


@pytest.fixture(scope="module")
def objects():
    return render_module(all_on=True)


def test_all_on_renders_every_component_even_over_disabled_example_values():
    objs = render_module({"cloudProviderDvp": {"internal": {"disableLoadBalancer": True}}}, all_on=True)
    deployments = sorted(o["metadata"]["name"] for o in objs if o["kind"] == "Deployment")
    assert deployments == ["capdvp-controller-manager", "cloud-controller-manager", "cloud-data-discoverer",
                           "csi-controller", "snapshot-controller", "snapshot-webhooks", "validation-webhook"]


def test_overrides_win_and_none_deletes_a_key():
    merged = deep_merge({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 5, "c": None}})
    assert merged == {"a": {"b": 5}, "d": 3}


def test_render_cli_prints_the_module_as_multi_document_yaml(objects):
    proc = subprocess.run([sys.executable, "-m", "chart.render", "--all-on"], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert proc.stdout.startswith("---\n")
    assert list(yaml.safe_load_all(proc.stdout)) == objects


def test_render_cli_reports_a_failed_render_in_one_line():
    proc = subprocess.run([sys.executable, "-m", "chart.render", "--set-json",
                           'cloudProviderDvp.internal.validationWebhookCert=null'],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert re.search(r"cloudProviderDvp\.internal\.validationWebhookCert\.(ca|crt|key) is required", proc.stderr)


def test_render_error_names_the_template_the_object_and_the_field():
    where = r"^execution error at \(cloud-provider-dvp/templates/[a-z/-]+\.yaml:\d+:\d+\): "
    with pytest.raises(RenderError, match=where +
                       r"Secret dvp-credentials: cloudProviderDvp\.provider\.parameters\.namespace is required$"):
        render_module({"cloudProviderDvp": {"provider": {"parameters": {"namespace": ""}}}})


def test_strict_validation_rejects_an_unknown_field(objects):
    deployment = copy.deepcopy(find(objects, "Deployment", "csi-controller"))
    deployment["spec"]["template"]["spec"]["containers"][0]["bogus"] = 1
    errors = validate_object(deployment)
    assert len(errors) == 2  # once per Kubernetes version checked
    assert errors[0].startswith("Deployment d8-cloud-provider-dvp/csi-controller: spec.template.spec.containers.0:")
    assert "'bogus' was unexpected" in errors[0]
    assert errors[0].endswith("[Kubernetes 1.30 strict]")


def test_strict_validation_rejects_a_wrong_type(objects):
    deployment = copy.deepcopy(find(objects, "Deployment", "csi-controller"))
    deployment["spec"]["replicas"] = "3"
    assert any("spec.replicas: '3' is not of type 'integer'" in e for e in validate_object(deployment))


def test_custom_resources_are_checked_against_their_schema(objects):
    vpa = copy.deepcopy(find(objects, "VerticalPodAutoscaler", "csi-controller"))
    assert validate_object(vpa) == []
    vpa["spec"]["updatePolicy"]["updateMode"] = "Auto"
    vpa["spec"]["bogus"] = True
    errors = validate_object(vpa)
    assert len(errors) == 2
    assert any("spec.updatePolicy.updateMode: 'Auto' is not one of" in e for e in errors)
    assert any("spec: Additional properties are not allowed ('bogus' was unexpected)" in e for e in errors)
    assert all(e.endswith("[testkit/harness/schemas/verticalpodautoscaler.yaml]") for e in errors)


def test_our_crds_are_used_for_our_custom_resources():
    instance_class = {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass",
                      "metadata": {"name": "worker"}, "spec": {"bogus": 1}}
    errors = validate_object(instance_class)
    assert errors and all(e.endswith("[crds/dvpinstanceclass.yaml]") for e in errors)


def test_a_kind_without_any_schema_is_an_error_not_a_pass():
    unknown = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    assert validate_object(unknown) == [
        "Widget w: no schema for example.com/v1 Widget: not a built-in kind of Kubernetes 1.30/1.37, and no CRD in "
        "crds/ or .cache/upstream (run `make upstream` to fetch the upstream CRDs) nor in testkit/harness/schemas"]

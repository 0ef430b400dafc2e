# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The validator's rules over dhctl's payload: exact violations (path, code, message) for each object kind."""

from __future__ import annotations

import base64
import json

import pytest
from dvp_validator import schemas
from dvp_validator.domain import inputs, rules
from terraform_manager.inputs import BAD_MASTER_VIOLATION, bad_master_class_kind, payload


@pytest.fixture(scope="module")
def loaded():
    return schemas.load()


def check(p: dict, loaded) -> list[dict]:
    report = rules.validate(inputs.parse(json.dumps(p).encode()), loaded)
    return [vars(v) for v in report.errors]


@pytest.mark.parametrize("operation", ["bootstrap", "converge", "destroy"])
def test_the_layout_inputs_are_valid(operation, loaded):
    assert check(payload(operation), loaded) == []


def test_a_bad_master_node_group_is_refused_at_its_field(loaded):
    assert check(bad_master_class_kind(payload()), loaded) == [BAD_MASTER_VIOLATION]


def test_node_group_rules(loaded):
    p = payload("converge")
    groups = p["vars"]["nodeGroups"]
    groups["worker"]["spec"]["cloudInstances"]["classReference"]["name"] = "missing"
    groups["edge"] = {"metadata": {"name": "edge"}, "spec": {"nodeType": "CloudEphemeral", "cloudInstances": {
        "classReference": {"kind": "DVPInstanceClass", "name": ""}}}}
    assert check(p, loaded) == [
        {"path": "NodeGroup/edge.spec.cloudInstances.classReference.name", "code": "class_reference_name_required",
         "message": 'NodeGroup "edge": spec.cloudInstances.classReference.name is required'},
        {"path": "NodeGroup/worker.spec.cloudInstances.classReference.name", "code": "instance_class_not_found",
         "message": 'NodeGroup "worker": DVPInstanceClass "missing" is not among the installer resources'},
    ]


def test_master_is_required_for_bootstrap_and_converge_not_destroy(loaded):
    for operation in ("bootstrap", "converge"):
        p = payload(operation)
        master = p["vars"]["nodeGroups"].pop("master")
        p["vars"]["nodeGroups"]["control"] = master | {"metadata": {"name": "control"}}
        assert {"path": "NodeGroup/master", "code": "master_node_group_required",
                "message": 'NodeGroup "master" is required (CloudPermanent, classReference DVPInstanceClass)'} \
            in check(p, loaded)
    p = payload("destroy")
    del p["vars"]["nodeGroups"]["master"]
    assert check(p, loaded) == []


def test_etcd_disk_rules_are_the_shared_node_group_rule(loaded):
    p = payload()
    classes = p["vars"]["instanceClasses"]
    del classes["master"]["spec"]["etcdDisk"]
    classes["worker"]["spec"]["etcdDisk"] = {"size": "10Gi", "storageClass": "fast"}
    assert check(p, loaded) == [
        {"path": "DVPInstanceClass/master.spec.etcdDisk", "code": "master_etcd_disk_required",
         "message": 'DVPInstanceClass "master" is used by NodeGroup "master" and needs spec.etcdDisk'},
        {"path": "DVPInstanceClass/worker.spec.etcdDisk", "code": "etcd_disk_forbidden_for_non_master",
         "message": 'DVPInstanceClass "worker" has spec.etcdDisk but is used by NodeGroup worker; only "master" '
                    "may have an etcd disk"},
    ]


def test_instance_class_schema(loaded):
    p = payload()
    p["vars"]["instanceClasses"]["worker"]["spec"]["virtualMachine"]["cpu"]["cores"] = "four"
    assert check(p, loaded) == [
        {"path": "DVPInstanceClass/worker.spec.virtualMachine.cpu.cores", "code": "instance_class_invalid",
         "message": 'DVPInstanceClass "worker": spec.virtualMachine.cpu.cores must be of type integer'}]


def test_module_config_rules(loaded):
    p = payload()
    params = p["vars"]["settings"]["spec"]["settings"]
    del params["provider"]["parameters"]["namespace"]
    params["nodes"]["parameters"]["additionalVMLabels"] = {"dvp.deckhouse.io/hostname": "x"}
    assert check(p, loaded) == [
        {"path": "ModuleConfig/cloud-provider-dvp.spec.settings.nodes.parameters.additionalVMLabels",
         "code": "module_config_invalid",
         "message": "ModuleConfig cloud-provider-dvp: spec.settings.nodes.parameters.additionalVMLabels uses a "
                    "reserved key"},
        {"path": "ModuleConfig/cloud-provider-dvp.spec.settings.provider.parameters.namespace",
         "code": "module_config_invalid",
         "message": "ModuleConfig cloud-provider-dvp: spec.settings.provider.parameters.namespace is required"},
    ]
    p = payload("destroy")
    p["vars"]["settings"]["spec"]["version"] = 1
    del p["vars"]["settings"]["spec"]["settings"]
    assert check(p, loaded) == [{"path": "ModuleConfig/cloud-provider-dvp.spec.version",
                                 "code": "module_config_invalid",
                                 "message": "ModuleConfig cloud-provider-dvp: spec.version must be 2, got 1"}]


def test_credentials_are_the_shared_rule_and_never_echoed(loaded):
    p = payload()
    secret = p["vars"]["secrets"]["d8-credentials"]
    exec_kubeconfig = ("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: https://x}}]\n"
                       "contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n"
                       "users: [{name: u, user: {exec: {command: s3cr3t-helper}}}]\n")
    secret["stringData"]["secret"] = base64.b64encode(exec_kubeconfig.encode()).decode()
    errors = check(p, loaded)
    assert errors == [{"path": "Secret/d8-credentials.data.secret", "code": "credential_secret_invalid",
                       "message": "Secret d8-cloud-provider-dvp/d8-credentials: data.secret: kubeconfig: "
                                  'users[name="u"].user.exec: exec plugins are not supported; use an inline token '
                                  "or client-certificate-data with client-key-data"}]
    assert "s3cr3t" not in json.dumps(errors)
    p = payload("destroy")
    del p["vars"]["secrets"]["d8-credentials"]
    assert check(p, loaded)[0]["code"] == "credential_secret_required"


def test_legacy_configuration_stands_in_until_the_v2_objects_are_complete(loaded):
    p = payload()
    del p["vars"]["secrets"]["d8-credentials"]
    p["providerClusterConfiguration"] = {"apiVersion": "deckhouse.io/v1", "kind": "DVPClusterConfiguration"}
    report = rules.validate(inputs.parse(json.dumps(p).encode()), loaded)
    assert [(v.path, v.code) for v in report.errors] == [
        ("DVPClusterConfiguration.masterNodeGroup", "provider_cluster_configuration_invalid")]
    assert [v.code for v in report.warnings] == ["provider_cluster_configuration_in_use"]


@pytest.mark.parametrize(("raw", "message"), [
    (b"{", "input_json is not JSON: JSONDecodeError at position 1"),
    (b"[]", "input_json must be a JSON object"),
    (b'{"operation": "upgrade"}', "input_json: operation must be one of bootstrap, converge, destroy, got 'upgrade'"),
    (b'{"operation": "bootstrap", "providerName": "aws"}', "input_json: providerName must be 'dvp', got 'aws'"),
    (b'{"operation": "bootstrap", "vars": {"nodeGroups": []}}',
     "input_json: vars.nodeGroups must be a map of name to object"),
])
def test_a_payload_that_does_not_decode_is_bad_input(raw, message):
    with pytest.raises(inputs.BadInput) as exc:
        inputs.parse(raw)
    assert str(exc.value) == message


def test_a_group_is_named_by_its_key_in_dhctls_map(loaded):
    p = payload()
    worker = p["vars"]["nodeGroups"]["worker"]
    del worker["metadata"]
    p["vars"]["instanceClasses"]["worker"]["spec"]["etcdDisk"] = {"size": "10Gi", "storageClass": "fast"}
    assert [e["code"] for e in check(p, loaded)] == ["etcd_disk_forbidden_for_non_master"]

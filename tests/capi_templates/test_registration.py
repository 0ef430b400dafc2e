# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import base64
import json
import os

from chart import render

from testkit.harness.validate import validate_objects
from testkit.nodemanager import ROOT

SSH = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleExampleExampleExampleExampleExampl demo"
REGISTRATION = ("d8-node-manager-cloud-provider", "d8-node-manager-cloud-provider-dvp")


def objects(overrides=None):
    return {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]): o
            for o in render.render_values(render.module_values(overrides))}


def decoded(obj):
    return {k: base64.b64decode(v).decode() for k, v in obj["data"].items()}


def expected(zones, provider):
    return {
        "type": "dvp", "region": "default", "zones": json.dumps(zones, separators=(",", ":")),
        "instanceClassKind": "DVPInstanceClass", "instanceClassAPIVersion": "v1alpha1", "machineClassKind": "",
        "capiClusterKind": "DeckhouseCluster", "capiClusterAPIVersion": "infrastructure.cluster.x-k8s.io/v1alpha1",
        "capiClusterAPIGroup": "infrastructure.cluster.x-k8s.io", "capiClusterName": "dvp",
        "capiMachineTemplateKind": "DeckhouseMachineTemplate",
        "capiMachineTemplateAPIVersion": "infrastructure.cluster.x-k8s.io/v1alpha1",
        "capiMachineTemplateAPIGroup": "infrastructure.cluster.x-k8s.io",
        "sshPublicKey": SSH, "dvp": json.dumps(provider, separators=(",", ":")),
    }


def test_registration_secrets_carry_the_node_manager_keys():
    objs = objects({"cloudProviderDvp": {
        "internal": {"providerDiscoveryData": {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData",
                                               "zones": ["z1", "z2"]}},
        "nodes": {"parameters": {"additionalVMLabels": {"bastion": "allowed"}}}}})
    for name in REGISTRATION:
        obj = objs[("Secret", "kube-system", name)]
        assert obj["metadata"]["labels"] == {"heritage": "deckhouse", "module": "cloud-provider-dvp",
                                             "cloud-provider.deckhouse.io/registration": "",
                                             "cloud-provider.deckhouse.io/name": "dvp"}
        assert decoded(obj) == expected(["z1", "z2"], {"additionalVMLabels": {"bastion": "allowed"},
                                                       "zones": ["zone-a", "zone-b"]})
    assert validate_objects([objs[("Secret", "kube-system", n)] for n in REGISTRATION]) == []


def test_the_dvp_subtree_carries_the_configured_zones_for_the_cluster_template():
    objs = objects({"cloudProviderDvp": {"nodes": {"parameters": {"zones": ["zone-a", "zone-b"]}}}})
    assert json.loads(decoded(objs[("Secret", "kube-system", REGISTRATION[0])])["dvp"]) == {
        "zones": ["zone-a", "zone-b"]}


def test_zones_default_without_discovery_data_and_registration_survives_nodes_disabled():
    objs = objects({"cloudProviderDvp": {"internal": {"providerDiscoveryData": None}, "nodes": {"disabled": True}}})
    assert decoded(objs[("Secret", "kube-system", REGISTRATION[0])]) == expected(["default"],
                                                                                 {"zones": ["zone-a", "zone-b"]})
    assert ("Secret", "kube-system", "d8-cloud-provider-dvp-capi") not in objs


def test_capi_secret_publishes_every_capi_file_verbatim():
    obj = objects()[("Secret", "kube-system", "d8-cloud-provider-dvp-capi")]
    assert obj["metadata"]["labels"] == {"heritage": "deckhouse", "module": "cloud-provider-dvp",
                                         "cloud-provider.deckhouse.io/ephemeral-nodes-templates": "capi",
                                         "cloud-provider.deckhouse.io/name": "dvp"}
    files = sorted(os.listdir(os.path.join(ROOT, "capi")))
    assert files == ["cluster.yaml", "instance-class.checksum", "machine-template.yaml", "template.yaml"]
    contents = {}
    for name in files:
        with open(os.path.join(ROOT, "capi", name)) as f:
            contents[name] = f.read()
    assert decoded(obj) == contents
    assert validate_objects([obj]) == []

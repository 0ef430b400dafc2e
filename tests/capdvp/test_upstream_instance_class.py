# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A DVPInstanceClass written for Deckhouse's module, from the class through node-manager's rendering of capi/
(contract v1 and v2) and the DeckhouseMachine spec to the exact VirtualMachine capdvp creates.

Each case is read in Deckhouse's module's newest CRD, modules/030-cloud-provider-dvp/crds/instance_class.yaml
@21af0b5e2fcf016a7e5e0528b72345dc290008e0: nodeSelector is a core NodeSelector. Its capdvp does not carry it to
the VM (capi/template.yaml@26e83c58cba0a0c88738f9151efb57d00d19071f renders no nodeSelector): here the terms mean
what the CRD documents, the VM's placement, as required node affinity."""

from __future__ import annotations

import copy

import pytest
from capdvp.domain import admission, manifests, ownership
from capdvp.domain.machine_spec import SpecError, parse_spec

from testkit.nodemanager import render_v1, render_v2

UUID = "3b5058e1-e93b-4dfa-be32-395ef4b3da45"
TERMS = [
    {"matchExpressions": [{"key": "node.example.com/pool", "operator": "In", "values": ["a", "b"]},
                          {"key": "spare", "operator": "DoesNotExist"}]},
    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["dvp-node-3"]}]},
]
CLASS = {
    "virtualMachine": {"cpu": {"cores": 2}, "memory": {"size": "4Gi"}, "virtualMachineClassName": "generic",
                       "liveMigrationPolicy": "AlwaysSafe", "nodeSelector": {"nodeSelectorTerms": TERMS}},
    "rootDisk": {"size": "20Gi", "image": {"kind": "VirtualImage", "name": "ubuntu"}},
}


def _machine_spec(contract: str, ic: dict) -> dict:
    template = render_v2(ic) if contract == "v2" else render_v1("worker", ic)[1]
    return template["spec"]["template"]["spec"]


@pytest.mark.parametrize("contract", ["v1", "v2"])
def test_node_selector_terms_reach_the_vm_exactly(contract):
    spec = _machine_spec(contract, copy.deepcopy(CLASS))
    assert spec == {"vmClassName": "generic", "cpu": {"cores": 2}, "memory": "4Gi", "rootDiskSize": "20Gi",
                    "bootDiskImageRef": {"kind": "VirtualImage", "name": "ubuntu"},
                    "liveMigrationPolicy": "AlwaysSafe", "nodeSelectorTerms": TERMS}
    vm = manifests.virtual_machine("w-1", parse_spec(spec), UUID, False, zone="zone-a")
    assert vm == {
        "apiVersion": "virtualization.deckhouse.io/v1alpha2",
        "kind": "VirtualMachine",
        "metadata": {"name": "w-1", "labels": ownership.machine_labels(UUID, "w-1")},
        "spec": {
            "virtualMachineClassName": "generic",
            "runPolicy": "AlwaysOnUnlessStoppedManually",
            "liveMigrationPolicy": "AlwaysSafe",
            "osType": "Generic",
            "bootloader": "EFI",
            "enableParavirtualization": True,
            "cpu": {"cores": 2},
            "memory": {"size": "4Gi"},
            "blockDeviceRefs": [{"kind": "VirtualDisk", "name": "w-1-boot"}],
            "provisioning": {"type": "UserDataRef", "userDataRef": {"kind": "Secret", "name": "cloud-init-w-1"}},
            # the machine's zone ANDs with the class's terms, as a pod's nodeSelector does with its affinity
            "nodeSelector": {"topology.kubernetes.io/zone": "zone-a"},
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": TERMS}}},
        },
    }


@pytest.mark.parametrize("contract", ["v1", "v2"])
def test_the_label_map_form_stays_the_vms_node_selector(contract):
    ic = copy.deepcopy(CLASS)
    ic["virtualMachine"]["nodeSelector"] = {"rack": "r1"}
    del ic["virtualMachine"]["liveMigrationPolicy"]
    spec = _machine_spec(contract, ic)
    assert (spec["nodeSelector"], "nodeSelectorTerms" in spec) == ({"rack": "r1"}, False)
    vm = manifests.virtual_machine("m-0", parse_spec(spec), UUID, True, zone="zone-b")
    assert (vm["spec"]["nodeSelector"], "affinity" in vm["spec"], vm["spec"]["liveMigrationPolicy"]) == (
        {"rack": "r1", "topology.kubernetes.io/zone": "zone-b"}, False, "PreferForced")


@pytest.mark.parametrize(("terms", "message"), [
    ([], "spec.nodeSelectorTerms: must hold at least one term"),
    ([{"matchExpressions": [{"key": "a", "operator": "NotIn"}]}],
     "spec.nodeSelectorTerms[0].matchExpressions[0].values: must not be empty for operator NotIn"),
    ([{"matchFields": [{"key": "metadata.name", "operator": "In", "values": []}]}],
     "spec.nodeSelectorTerms[0].matchFields[0].values: must hold exactly one node name"),
])
def test_a_machine_with_terms_a_pod_could_not_have_is_refused_naming_the_field(terms, message):
    spec = _machine_spec("v2", copy.deepcopy(CLASS))
    spec["nodeSelectorTerms"] = terms
    with pytest.raises(SpecError) as err:
        parse_spec(spec)
    assert str(err.value) == message


def test_changing_a_machines_terms_needs_a_new_machine():
    spec = _machine_spec("v2", copy.deepcopy(CLASS))
    old = {"metadata": {"name": "w-1", "namespace": "ns"}, "spec": spec}
    new = copy.deepcopy(old)
    new["spec"]["nodeSelectorTerms"] = [TERMS[0]]
    assert admission.validate_machine("UPDATE", new, old) == (
        'DeckhouseMachine.infrastructure.cluster.x-k8s.io "ns/w-1": changing nodeSelectorTerms needs a new machine; '
        "roll out a new DeckhouseMachineTemplate instead")
    assert admission.validate_machine("UPDATE", copy.deepcopy(old), old) is None

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The rules of our hand-written DVP CRDs (sim/crds) that DVP's own CRDs have, on the real kube-apiserver: the
status conditions are metav1.Condition (every field but observedGeneration required, DVP's reason pattern), a VM's
status devices carry size and attached, the provisioning references name their kind, a VM's core fraction has no
schema default (DVP's defaulting webhook applies the class's), and a VirtualDiskSnapshot has no status.size."""

from __future__ import annotations

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import Forbidden, Invalid

from sim.builders import WAIT, disk, phase_is, vm

VM_HOOK = 'admission webhook "vm.virtualization-controller.validate.d8-virtualization" denied the request: '
NOW = "2026-12-07T22:00:00Z"


def invalid(call, *args) -> Invalid:
    with pytest.raises(Invalid) as info:
        call(*args)
    assert (info.value.status, info.value.reason) == (422, "Invalid")
    return info.value


def condition(**drop_or_set) -> dict:
    cond = {"type": "Running", "status": "False", "reason": "PodNotStarted", "message": "", "lastTransitionTime": NOW}
    for key, value in drop_or_set.items():
        if value is None:
            del cond[key]
        else:
            cond[key] = value
    return cond


@pytest.fixture
def stored_vm(dvp, ns) -> dict:
    return dvp.create(R.VIRTUAL_MACHINE, vm("schema", ["schema-boot"]), ns)


@pytest.mark.parametrize("field", ["lastTransitionTime", "message", "reason", "status", "type"])
def test_a_vm_condition_needs_every_field_of_a_metav1_condition(dvp, ns, stored_vm, field):
    stored_vm["status"] = {"conditions": [condition(**{field: None})]}
    err = invalid(dvp.update_status, R.VIRTUAL_MACHINE, stored_vm, ns)
    assert f"status.conditions[0].{field}: Required value" in err.message


def test_an_empty_condition_message_is_a_message(dvp, ns, stored_vm):
    stored_vm["status"] = {"conditions": [condition()]}
    assert dvp.update_status(R.VIRTUAL_MACHINE, stored_vm, ns)["status"]["conditions"][0]["message"] == ""


@pytest.mark.parametrize("reason", ["Pod not started", "", "9Lives", "Ends_with:"])
def test_a_condition_reason_follows_dvps_pattern(dvp, ns, stored_vm, reason):
    stored_vm["status"] = {"conditions": [condition(reason=reason)]}
    err = invalid(dvp.update_status, R.VIRTUAL_MACHINE, stored_vm, ns)
    assert "status.conditions[0].reason: Invalid value: " in err.message


@pytest.mark.parametrize(("res", "body"), [
    (R.VIRTUAL_MACHINE_IP_ADDRESS, {"apiVersion": "virtualization.deckhouse.io/v1alpha2",
                                    "kind": "VirtualMachineIPAddress", "metadata": {"name": "addr"},
                                    "spec": {"type": "Auto"}}),
    (R.VIRTUAL_DISK_SNAPSHOT, {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualDiskSnapshot",
                               "metadata": {"name": "snap"}, "spec": {"virtualDiskName": "d"}}),
])
def test_every_hand_written_dvp_kind_holds_its_conditions_to_metav1(dvp, ns, res, body):
    made = dvp.create(res, body, ns)
    made["status"] = {"conditions": [condition(message=None)]}
    err = invalid(dvp.update_status, res, made, ns)
    assert "status.conditions[0].message: Required value" in err.message


@pytest.mark.parametrize("field", ["size", "attached"])
def test_a_vm_status_device_carries_its_size_and_whether_it_is_attached(dvp, ns, stored_vm, field):
    ref = {"kind": "VirtualDisk", "name": "schema-boot", "size": "1Gi", "attached": False}
    del ref[field]
    stored_vm["status"] = {"blockDeviceRefs": [ref]}
    err = invalid(dvp.update_status, R.VIRTUAL_MACHINE, stored_vm, ns)
    assert f"status.blockDeviceRefs[0].{field}: Required value" in err.message


def test_a_snapshot_has_no_status_size(dvp, ns):
    made = dvp.create(R.VIRTUAL_DISK_SNAPSHOT, {"apiVersion": "virtualization.deckhouse.io/v1alpha2",
                                                "kind": "VirtualDiskSnapshot", "metadata": {"name": "sized"},
                                                "spec": {"virtualDiskName": "d"}}, ns)
    made["status"] = {"phase": "Ready", "size": "1Gi"}
    assert dvp.update_status(R.VIRTUAL_DISK_SNAPSHOT, made, ns)["status"] == {"phase": "Ready"}  # pruned


def test_a_user_data_ref_names_its_kind_secret_by_default(dvp, ns):
    body = vm("refs", ["refs-boot"])
    body["spec"]["provisioning"] = {"type": "UserDataRef", "userDataRef": {"name": "cloud-init"}}
    made = dvp.create(R.VIRTUAL_MACHINE, body, ns)
    assert made["spec"]["provisioning"]["userDataRef"] == {"kind": "Secret", "name": "cloud-init"}
    body = vm("odd-ref", ["refs-boot"])
    body["spec"]["provisioning"] = {"type": "UserDataRef", "userDataRef": {"kind": "ConfigMap", "name": "x"}}
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, body, ns)
    assert 'spec.provisioning.userDataRef.kind: Unsupported value: "ConfigMap": supported values: "Secret"' \
        in err.message


# A VM's core fraction: no schema default; DVP's defaulting webhook applies the class's sizing policy's -----------
def _class(dvp, name: str, policy: dict) -> str:
    dvp.create(R.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": name}, "spec": {
        "cpu": {"type": "Discovery"}, "sizingPolicies": [{"cores": {"min": 1, "max": 4}, **policy}]}},
        get_existing=True)
    return name


def _running_with_class(dvp, ns, name: str, vm_class: str) -> dict:
    dvp.create(R.VIRTUAL_DISK, disk(f"{name}-boot", "1Gi"), ns)
    body = vm(name, [f"{name}-boot"])
    body["spec"]["virtualMachineClassName"] = vm_class
    made = dvp.create(R.VIRTUAL_MACHINE, body, ns)
    assert "coreFraction" not in made["spec"]["cpu"]  # the schema defaults nothing
    return dvp.wait_for(R.VIRTUAL_MACHINE, name, phase_is("Running"), WAIT, ns)


@pytest.mark.parametrize(("policy", "fraction"), [
    ({"coreFractions": [10, 20, 50], "defaultCoreFraction": 20}, "20%"),
    ({"coreFractions": [50, 100]}, "100%"),
    ({}, "100%"),
])
def test_a_vm_without_a_core_fraction_runs_with_its_class_default(dvp, ns, sim, policy, fraction):
    vm_class = _class(dvp, f"default-{fraction.rstrip('%')}-{len(policy)}", policy)
    running = _running_with_class(dvp, ns, "frac", vm_class)
    assert running["status"]["resources"]["cpu"]["coreFraction"] == fraction


def test_a_vm_without_a_core_fraction_is_refused_when_its_class_has_no_default_to_give(dvp, ns):
    vm_class = _class(dvp, "no-default", {"coreFractions": [5, 10]})
    body = vm("nodefault", ["nodefault-boot"])
    body["spec"]["virtualMachineClassName"] = vm_class
    with pytest.raises(Forbidden) as info:
        dvp.create(R.VIRTUAL_MACHINE, body, ns)
    assert info.value.message == (
        f'{VM_HOOK}the default value for core fraction is not defined. For the specified configuration ".spec.cpu.'
        'cores 1", the following core fractions are allowed: [5% 10%]. Please specify the ".spec.core.coreFraction" '
        "value and try again")

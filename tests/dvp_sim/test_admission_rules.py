# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The rules of tests/dvp_sim/CONTRACT.md that test_admission.py and test_schema.py leave open, each through the
real DVP kube-apiserver with the simulator's webhook: the HTTP code, the reason and the whole message."""

from __future__ import annotations

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import Forbidden, Invalid

from sim.builders import WAIT, condition, disk, phase_is, vm, vmop

VM_HOOK = 'admission webhook "vm.virtualization-controller.validate.d8-virtualization" denied the request: '
VD_HOOK = 'admission webhook "vd.virtualization-controller.validate.d8-virtualization" denied the request: '


def refused(call, *args) -> Forbidden:
    with pytest.raises(Forbidden) as info:
        call(*args)
    assert (info.value.status, info.value.reason) == (403, "Forbidden")
    return info.value


def invalid(call, *args) -> Invalid:
    with pytest.raises(Invalid) as info:
        call(*args)
    assert (info.value.status, info.value.reason) == (422, "Invalid")
    return info.value


@pytest.fixture
def per_core(dvp) -> str:
    """1-4 cores, 1Gi-2Gi of memory per core, no total limit."""
    dvp.create(R.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "per-core"}, "spec": {"cpu": {"type": "Discovery"},
               "sizingPolicies": [{"cores": {"min": 1, "max": 4},
                                   "memory": {"perCore": {"min": "1Gi", "max": "2Gi"}}}]}}, get_existing=True)
    return "per-core"


def classed_vm(name: str, vm_class: str, cores: int, memory: str) -> dict:
    body = vm(name, [f"{name}-boot"])
    body["spec"].update(virtualMachineClassName=vm_class, cpu={"cores": cores}, memory={"size": memory})
    return body


# A5: memory per core --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("memory", "problem"), [
    ("8Gi", "requested VM per core memory (4Gi) exceeds the maximum allowed, available range [1Gi, 2Gi]"),
    ("1Gi", "requested VM per core memory (512Mi) is less than the minimum allowed, available range [1Gi, 2Gi]"),
])
def test_vm_memory_per_core_outside_the_policy_is_refused(dvp, ns, per_core, memory, problem):
    err = refused(dvp.create, R.VIRTUAL_MACHINE, classed_vm("per-core", per_core, 2, memory), ns)
    assert err.message == f"{VM_HOOK}sizing policy validate: {problem}"
    assert dvp.create(R.VIRTUAL_MACHINE, classed_vm("per-core-ok", per_core, 2, "4Gi"), ns)["spec"]["memory"] == {
        "size": "4Gi"}


# A2: the kubevirt.io group in a label key, on update -----------------------------------------------------------
def test_vm_label_key_with_the_kubevirt_group_is_refused_on_update(dvp, ns):
    dvp.create(R.VIRTUAL_MACHINE, vm("kv-label-update", ["d"]), ns)
    err = refused(dvp.patch, R.VIRTUAL_MACHINE, "kv-label-update",
                  {"metadata": {"labels": {"kubevirt.io/domain": "x"}}}, ns)
    assert err.message == f"{VM_HOOK}using the kubevirt.io group's name in the label is prohibited"
    # a key that merely resembles it is DVP's to accept
    made = dvp.patch(R.VIRTUAL_MACHINE, "kv-label-update", {"metadata": {"labels": {"kubevirt-io/x": "y"}}}, ns)
    assert made["metadata"]["labels"] == {"kubevirt-io/x": "y"}


# A1, A8: name lengths ------------------------------------------------------------------------------------------
def test_vm_name_limit_is_dvps_and_other_kinds_keep_the_api_servers(dvp, ns):
    """63 is DVP's limit for a new VM; the API server's own limit (253) is the only one for other kinds."""
    err = refused(dvp.create, R.VIRTUAL_MACHINE, vm("n" * 64, ["d"]), ns)
    assert err.message.startswith(f'{VM_HOOK}the VirtualMachine name "{"n" * 64}" is too long')
    assert dvp.create(R.VIRTUAL_DISK, disk("d" * 253), ns)["metadata"]["name"] == "d" * 253


def test_disk_name_longer_than_253_characters_is_refused_by_the_api_server(dvp, ns):
    err = invalid(dvp.create, R.VIRTUAL_DISK, disk("d" * 254), ns)
    # the API server echoes the name twice, so the detail lies beyond the message our client keeps
    assert err.message.startswith('VirtualDisk.virtualization.deckhouse.io "ddd')
    assert '" is invalid: metadata.name: Invalid value: "ddd' in err.message


# A11: a provisioned disk keeps its size --------------------------------------------------------------------------
def test_provisioned_disk_size_cannot_be_dropped(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("keep-size", "1Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "keep-size", phase_is("Ready"), WAIT, ns)
    err = refused(dvp.patch, R.VIRTUAL_DISK, "keep-size", {"spec": {"persistentVolumeClaim": {"size": None}}}, ns)
    assert err.message == f"{VD_HOOK}spec.persistentVolumeClaim.size cannot be omitted once set"


def test_provisioned_disk_grows(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("grows", "1Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "grows", phase_is("Ready"), WAIT, ns)
    made = dvp.patch(R.VIRTUAL_DISK, "grows", {"spec": {"persistentVolumeClaim": {"size": "2Gi"}}}, ns)
    assert made["spec"]["persistentVolumeClaim"]["size"] == "2Gi"


# A10: storage class existence ----------------------------------------------------------------------------------
def test_disk_on_a_missing_storage_class_is_admitted_and_says_what_it_waits_for(dvp, ns, sim):
    made = dvp.create(R.VIRTUAL_DISK, disk("no-class-yet", storage_class="not-there"), ns)
    assert made["spec"]["persistentVolumeClaim"]["storageClassName"] == "not-there"
    waiting = dvp.wait_for(R.VIRTUAL_DISK, "no-class-yet", lambda o: o is not None and any(
        (c["type"], c["reason"]) == ("Ready", "StorageClassIsNotReady")
        for c in (o.get("status") or {}).get("conditions") or []), WAIT, ns)
    assert waiting["status"]["phase"] == "Pending"
    assert condition(waiting, "Ready")["status"] == "False"


# S12: int-or-string quantities ---------------------------------------------------------------------------------
def test_vm_class_memory_limits_are_int_or_string_quantities(dvp):
    made = dvp.create(R.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "int-memory"}, "spec": {
        "cpu": {"type": "Discovery"},
        "sizingPolicies": [{"cores": {"min": 1, "max": 2}, "memory": {"min": 1073741824, "max": "4Gi"}}]}})
    assert made["spec"]["sizingPolicies"][0]["memory"] == {"min": 1073741824, "max": "4Gi"}
    err = invalid(dvp.create, R.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "bad-memory"}, "spec": {
        "cpu": {"type": "Discovery"}, "sizingPolicies": [{"cores": {"min": 1, "max": 2}, "memory": {"max": "lots"}}]}})
    assert "spec.sizingPolicies[0].memory.max" in err.message


# S10: VMOP spec immutability, whole ----------------------------------------------------------------------------
@pytest.mark.parametrize("change", [{"type": "Start"}, {"virtualMachineName": "another-vm"}])
def test_every_operation_spec_field_is_immutable(dvp, ns, change):
    name = "op-" + next(iter(change)).lower()
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop(name, "some-vm", "Stop"), ns)
    err = invalid(dvp.patch, R.VIRTUAL_MACHINE_OPERATION, name, {"spec": change}, ns)
    assert err.message.startswith(f'VirtualMachineOperation.virtualization.deckhouse.io "{name}" is invalid: ')
    assert "spec: Invalid value: .spec is immutable" in err.message


# S13: VirtualMachineClass core ranges --------------------------------------------------------------------------
@pytest.mark.parametrize(("cores", "detail"), [
    ({"min": 4, "max": 2}, "spec.sizingPolicies[0].cores: Invalid value: The maximum must be greater than the minimum"),
    ({"min": 1, "max": 4, "step": 4},
     "spec.sizingPolicies[0].cores: Invalid value: The maximum must be greater than the step"),
    ({"min": 0, "max": 4}, "spec.sizingPolicies[0].cores.min: Invalid value: 0: spec.sizingPolicies[0].cores.min in "
                           "body should be greater than or equal to 1"),
    ({"min": 1, "max": 2048}, "spec.sizingPolicies[0].cores.max: Invalid value: 2048: spec.sizingPolicies[0].cores.max "
                              "in body should be less than or equal to 1024"),
    ({"max": 4}, "spec.sizingPolicies[0].cores.min: Required value"),
])
def test_vm_class_core_ranges_are_dvps(dvp, cores, detail):
    err = invalid(dvp.create, R.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "bad-cores"}, "spec": {
        "cpu": {"type": "Discovery"}, "sizingPolicies": [{"cores": cores}]}})
    assert err.message.startswith('VirtualMachineClass.virtualization.deckhouse.io "bad-cores" is invalid: ')
    assert detail in err.message

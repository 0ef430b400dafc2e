# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP's admission webhooks through the real DVP kube-apiserver (sim/CONTRACT.md, "Admission"): one
test per rule, each asserting the HTTP answer (403 Forbidden) and DVP's message as the API server relays it."""

from __future__ import annotations

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import Forbidden
from dvp_common.kube.resources import STORAGE_CLASS

from sim.builders import WAIT, condition, disk, phase_is, vm, vmbda

VM_HOOK = 'admission webhook "vm.virtualization-controller.validate.d8-virtualization" denied the request: '
VD_HOOK = 'admission webhook "vd.virtualization-controller.validate.d8-virtualization" denied the request: '
VMBDA_HOOK = 'admission webhook "vmbda.virtualization-controller.validate.d8-virtualization" denied the request: '


@pytest.fixture
def sized(dvp) -> str:
    """A class with every kind of sizing limit: 1-4 cores, 1-8Gi in 1Gi steps, fractions 50 and 100 %."""
    dvp.create(R.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "sized"}, "spec": {"cpu": {"type": "Discovery"},
               "sizingPolicies": [{"cores": {"min": 1, "max": 4}, "coreFractions": [50, 100],
                                   "memory": {"min": "1Gi", "max": "8Gi", "step": "1Gi"}}]}}, get_existing=True)
    return "sized"


def refused(call, *args) -> Forbidden:
    with pytest.raises(Forbidden) as info:
        call(*args)
    assert (info.value.status, info.value.reason) == (403, "Forbidden")
    return info.value


def sized_vm(name: str, cores: int = 2, fraction: str = "100%", memory: str = "2Gi") -> dict:
    body = vm(name, [f"{name}-boot"])
    body["spec"].update(virtualMachineClassName="sized", cpu={"cores": cores, "coreFraction": fraction},
                        memory={"size": memory})
    return body


# VirtualMachine --------------------------------------------------------------------------------------------------
def test_vm_name_longer_than_63_characters_is_refused(dvp, ns):
    name = "v" * 64
    err = refused(dvp.create, R.VIRTUAL_MACHINE, vm(name, ["d"]), ns)
    assert err.message == (f'{VM_HOOK}the VirtualMachine name "{name}" is too long: it must be no more than 63 '
                           "characters")
    assert dvp.create(R.VIRTUAL_MACHINE, vm("v" * 63, ["d"]), ns)["metadata"]["name"] == "v" * 63


def test_vm_label_key_with_the_kubevirt_group_is_refused(dvp, ns):
    body = vm("kv-label", ["d"])
    body["metadata"]["labels"] = {"vm.kubevirt.io/name": "x"}
    err = refused(dvp.create, R.VIRTUAL_MACHINE, body, ns)
    assert err.message == f"{VM_HOOK}using the kubevirt.io group's name in the label is prohibited"


def test_vm_annotation_key_with_the_kubevirt_group_is_refused_on_update_too(dvp, ns):
    dvp.create(R.VIRTUAL_MACHINE, vm("kv-anno", ["d"]), ns)
    err = refused(dvp.patch, R.VIRTUAL_MACHINE, "kv-anno",
                  {"metadata": {"annotations": {"kubevirt.io/latest-observed-api-version": "v1"}}}, ns)
    assert err.message == f"{VM_HOOK}using the kubevirt.io group's name in the annotation is prohibited"


def test_vm_cores_outside_every_sizing_policy_are_refused(dvp, ns, sized):
    err = refused(dvp.create, R.VIRTUAL_MACHINE, sized_vm("big", cores=8), ns)
    assert err.message == f'{VM_HOOK}virtual machine "big" resources do not match any sizing policies in class "sized"'


def test_vm_core_fraction_outside_the_policy_is_refused(dvp, ns, sized):
    err = refused(dvp.create, R.VIRTUAL_MACHINE, sized_vm("frac", fraction="20%"), ns)
    assert err.message == f"{VM_HOOK}sizing policy validate: VM core fraction value 20 is not within the allowed values"


@pytest.mark.parametrize(("memory", "problem"), [
    ("16Gi", "requested VM memory (16Gi) exceeds the maximum allowed, available range [1Gi, 8Gi]"),
    ("512Mi", "requested VM memory (512Mi) is less than the minimum allowed, available range [1Gi, 8Gi]"),
    ("1536Mi", "requested VM memory does not match any available values, nearest valid values are [1Gi, 2Gi]"),
])
def test_vm_memory_outside_the_policy_range_or_step_is_refused(dvp, ns, sized, memory, problem):
    err = refused(dvp.create, R.VIRTUAL_MACHINE, sized_vm("mem", memory=memory), ns)
    assert err.message == f"{VM_HOOK}sizing policy validate: {problem}"


def test_vm_resized_out_of_its_class_policy_is_refused_on_update(dvp, ns, sized):
    dvp.create(R.VIRTUAL_MACHINE, sized_vm("grow"), ns)
    err = refused(dvp.patch, R.VIRTUAL_MACHINE, "grow", {"spec": {"cpu": {"cores": 6}}}, ns)
    assert err.message == f'{VM_HOOK}virtual machine "grow" resources do not match any sizing policies in class "sized"'


def test_vm_of_a_missing_class_is_admitted_and_waits(dvp, ns):
    body = vm("classless", ["d"])
    body["spec"]["virtualMachineClassName"] = "not-yet"
    assert dvp.create(R.VIRTUAL_MACHINE, body, ns)["spec"]["virtualMachineClassName"] == "not-yet"


# VirtualDisk -----------------------------------------------------------------------------------------------------
def test_disk_name_with_a_dot_is_refused(dvp, ns):
    err = refused(dvp.create, R.VIRTUAL_DISK, disk("data.1"), ns)
    assert err.message == (f"{VD_HOOK}the VirtualDisk name \"data.1\" is invalid: '.' is forbidden, allowed name "
                           "symbols are [0-9a-zA-Z-]")


def test_blank_disk_without_a_size_is_refused(dvp, ns):
    err = refused(dvp.create, R.VIRTUAL_DISK, disk("blank", size=None), ns)
    assert err.message == (f"{VD_HOOK}if the data source is not specified, it's necessary to set "
                           "spec.PersistentVolumeClaim.size to create blank virtual disk")


def test_disk_of_size_zero_is_refused(dvp, ns):
    err = refused(dvp.create, R.VIRTUAL_DISK, disk("zero", size="0"), ns)
    assert err.message == f"{VD_HOOK}virtual disk size must be greater than 0"


def test_disk_on_a_deprecated_provisioner_is_refused(dvp, ns):
    dvp.create(STORAGE_CLASS, {"metadata": {"name": "sim-local-path", "labels": {"module": "local-path-provisioner"}},
                               "provisioner": "rancher.io/local-path"}, get_existing=True)
    err = refused(dvp.create, R.VIRTUAL_DISK, disk("old-sc", storage_class="sim-local-path"), ns)
    assert err.message == (f'{VD_HOOK}the provisioner of the "sim-local-path" storage class is deprecated; please use '
                           "a different one")


def test_provisioned_disk_cannot_shrink(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("shrink", "2Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "shrink", phase_is("Ready"), WAIT, ns)
    err = refused(dvp.patch, R.VIRTUAL_DISK, "shrink", {"spec": {"persistentVolumeClaim": {"size": "1Gi"}}}, ns)
    assert err.message == (f"{VD_HOOK}spec.persistentVolumeClaim.size value (1Gi) should be greater than or equal to "
                           "the current value (2Gi)")


def test_provisioned_disk_keeps_its_data_source(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("src", None, source=("ClusterVirtualImage", "ubuntu")), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "src", phase_is("Ready"), WAIT, ns)
    err = refused(dvp.patch, R.VIRTUAL_DISK, "src", {"spec": {"dataSource": {"objectRef": {"name": "other"}}}}, ns)
    assert err.message == f"{VD_HOOK}data source cannot be changed if the VirtualDisk has already been provisioned"


def test_storage_class_of_a_disk_no_vm_mounts_cannot_change(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("loose", "1Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "loose", phase_is("Ready"), WAIT, ns)
    err = refused(dvp.patch, R.VIRTUAL_DISK, "loose",
                  {"spec": {"persistentVolumeClaim": {"storageClassName": "sim-other"}}}, ns)
    assert err.message == f"{VD_HOOK}storage class cannot be changed if the VirtualDisk not mounted to virtual machine"


def test_storage_class_cannot_change_while_the_vm_has_hot_plugged_disks(dvp, ns, sim):
    for name in ("hp-boot", "hp-extra"):
        dvp.create(R.VIRTUAL_DISK, disk(name, "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("hp", ["hp-boot"]), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "hp", phase_is("Running"), WAIT, ns)
    dvp.create(R.VMBDA, vmbda("hp-att", "hp", "hp-extra"), ns)
    dvp.wait_for(R.VMBDA, "hp-att", phase_is("Attached"), WAIT, ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "hp", lambda o: any(r.get("hotplugged") for r in o["status"]["blockDeviceRefs"]),
                 WAIT, ns)
    err = refused(dvp.patch, R.VIRTUAL_DISK, "hp-boot",
                  {"spec": {"persistentVolumeClaim": {"storageClassName": "sim-other"}}}, ns)
    assert err.message == (f"{VD_HOOK}for now, changing the storage class is not allowed if the virtual machine has "
                           "hot-plugged block devices")


# VirtualMachineBlockDeviceAttachment -----------------------------------------------------------------------------
def test_attachment_spec_cannot_change(dvp, ns):
    dvp.create(R.VMBDA, vmbda("fixed", "some-vm", "some-disk"), ns)
    err = refused(dvp.patch, R.VMBDA, "fixed", {"spec": {"virtualMachineName": "another-vm"}}, ns)
    assert err.message == (f"{VMBDA_HOOK}VirtualMachineBlockDeviceAttachment is an idempotent resource: "
                           "specification changes are not available")


def test_attachment_of_a_disk_whose_previous_attachment_is_terminating_is_refused(dvp, ns, start_sim):
    start_sim(stuck={"VirtualMachineBlockDeviceAttachment.Terminating"})
    for name in ("t-boot", "t-data"):
        dvp.create(R.VIRTUAL_DISK, disk(name, "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("t", ["t-boot"]), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "t", phase_is("Running"), WAIT, ns)
    dvp.create(R.VMBDA, vmbda("vmbda-t-data-node-a", "t", "t-data"), ns)
    dvp.wait_for(R.VMBDA, "vmbda-t-data-node-a", phase_is("Attached"), WAIT, ns)
    dvp.delete(R.VMBDA, "vmbda-t-data-node-a", ns)
    dvp.wait_for(R.VMBDA, "vmbda-t-data-node-a", phase_is("Terminating"), WAIT, ns)
    err = refused(dvp.create, R.VMBDA, vmbda("vmbda-t-data-node-b", "t", "t-data"), ns)
    assert err.message == (f"{VMBDA_HOOK}another VirtualMachineBlockDeviceAttachment {ns}/vmbda-t-data-node-a "
                           "already exists with the same block device t-data for hot-plugging")


def test_second_attachment_of_an_attached_disk_is_refused(dvp, ns, sim):
    for name in ("two-boot", "two-data"):
        dvp.create(R.VIRTUAL_DISK, disk(name, "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("two", ["two-boot"]), ns)
    dvp.create(R.VMBDA, vmbda("first", "two", "two-data"), ns)
    attached = dvp.wait_for(R.VMBDA, "first", phase_is("Attached"), WAIT, ns)
    assert condition(attached, "Attached")["status"] == "True"
    err = refused(dvp.create, R.VMBDA, vmbda("second", "elsewhere", "two-data"), ns)
    assert err.message == (f"{VMBDA_HOOK}another VirtualMachineBlockDeviceAttachment {ns}/first already exists with "
                           "the same block device two-data for hot-plugging")

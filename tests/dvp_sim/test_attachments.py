# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineBlockDeviceAttachment: hot-plug, detach through the finalizer, the 16-device limit."""

from __future__ import annotations

from dvp_common.dvp import resources as R

from sim.builders import WAIT, condition, disk, gone, phase_is, vm, vmbda
from sim.conditions import VMBDA_FINALIZER


def test_attach_then_detach(dvp, ns, sim, record):
    rec = record(R.VMBDA)
    dvp.create(R.VIRTUAL_DISK, disk("host-boot", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("host", ["host-boot"]), ns)
    dvp.create(R.VIRTUAL_DISK, disk("pvc-1", "2Gi"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "host", phase_is("Running"), WAIT, ns)
    dvp.wait_for(R.VIRTUAL_DISK, "pvc-1", phase_is("Ready"), WAIT, ns)
    dvp.create(R.VMBDA, vmbda("vmbda-pvc-1-host", "host", "pvc-1"), ns)
    att = dvp.wait_for(R.VMBDA, "vmbda-pvc-1-host", phase_is("Attached"), WAIT, ns)
    # VM running, disk Ready: DVP's first pass sends the hot-plug request, so the first phase written is InProgress
    assert rec.until("vmbda-pvc-1-host", 2) == ["InProgress", "Attached"]
    assert att["metadata"]["finalizers"] == [VMBDA_FINALIZER]
    assert condition(att, "Attached")["status"] == "True"
    host = dvp.get(R.VIRTUAL_MACHINE, "host", ns)
    assert host["status"]["blockDeviceRefs"][1] == {
        "kind": "VirtualDisk", "name": "pvc-1", "size": "2Gi", "attached": True, "target": "sdb",
        "hotplugged": True, "virtualMachineBlockDeviceAttachmentName": "vmbda-pvc-1-host"}
    assert dvp.get(R.VIRTUAL_DISK, "pvc-1", ns)["status"]["attachedToVirtualMachines"] == [
        {"name": "host", "mounted": True}]

    dvp.delete(R.VMBDA, "vmbda-pvc-1-host", ns)
    assert dvp.wait_for(R.VMBDA, "vmbda-pvc-1-host", gone, WAIT, ns) is None
    assert "Terminating" in rec.of("vmbda-pvc-1-host")
    host = dvp.get(R.VIRTUAL_MACHINE, "host", ns)
    assert [r["name"] for r in host["status"]["blockDeviceRefs"]] == ["host-boot"]
    assert "attachedToVirtualMachines" not in dvp.get(R.VIRTUAL_DISK, "pvc-1", ns)["status"]


def test_attachments_are_reconciled_one_at_a_time_while_their_hot_plugs_overlap(dvp, ns, start_sim):
    sim = start_sim(stuck={"VirtualMachineBlockDeviceAttachment.InProgress"})  # hot-plugs that never complete
    workers = [t.name for t in sim._threads if t.name.startswith(f"dvp-sim-worker-{R.VMBDA.kind}")]
    assert workers == [f"dvp-sim-worker-{R.VMBDA.kind}0"]  # DVP's vmbda-controller: MaxConcurrentReconciles 1
    for name in ("host-boot", "hot-1", "hot-2"):
        dvp.create(R.VIRTUAL_DISK, disk(name, "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("host", ["host-boot"]), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "host", phase_is("Running"), WAIT, ns)
    for name in ("hot-1", "hot-2"):
        dvp.create(R.VMBDA, vmbda(f"att-{name}", "host", name), ns)
    # the one worker sent both requests: neither waits for the other's hot-plug to finish
    for name in ("att-hot-1", "att-hot-2"):
        assert condition(dvp.wait_for(R.VMBDA, name, phase_is("InProgress"), WAIT, ns), "Attached")["reason"] == \
            "AttachmentRequestSent"
    assert [phase_is("InProgress")(dvp.get(R.VMBDA, n, ns)) for n in ("att-hot-1", "att-hot-2")] == [True, True]
    assert sim.stats["errors"] == 0


def test_attachment_waits_for_a_running_vm(dvp, ns, start_sim):
    start_sim(stuck={"VirtualMachine.Starting"})
    dvp.create(R.VIRTUAL_DISK, disk("slow-boot", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("slow", ["slow-boot"]), ns)
    dvp.create(R.VIRTUAL_DISK, disk("extra", "1Gi"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "slow", phase_is("Starting"), WAIT, ns)
    dvp.create(R.VMBDA, vmbda("a-extra", "slow", "extra"), ns)
    pending = dvp.wait_for(R.VMBDA, "a-extra", lambda o: o is not None and any(
        c["type"] == "VirtualMachineReady" for c in o.get("status", {}).get("conditions", [])), WAIT, ns)
    assert pending["status"]["phase"] == "Pending"
    assert condition(pending, "VirtualMachineReady")["message"] == "the virtual machine is Starting"


def test_a_full_vm_keeps_the_attachment_pending_until_a_slot_frees(dvp, ns, sim):
    names = [f"s{i}" for i in range(15)]
    for name in names + ["hot-1", "hot-2"]:
        dvp.create(R.VIRTUAL_DISK, disk(name, "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("full", names), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "full", phase_is("Running"), WAIT, ns)
    dvp.create(R.VMBDA, vmbda("att-1", "full", "hot-1"), ns)
    assert dvp.wait_for(R.VMBDA, "att-1", phase_is("Attached", "Failed"), WAIT, ns)["status"]["phase"] == "Attached"
    dvp.create(R.VMBDA, vmbda("att-2", "full", "hot-2"), ns)
    waiting = dvp.wait_for(R.VMBDA, "att-2", lambda o: o is not None and any(
        c["type"] == "DiskAttachmentCapacityAvailableType" for c in o.get("status", {}).get("conditions", [])),
        WAIT, ns)
    assert waiting["status"]["phase"] == "Pending"
    cap = condition(waiting, "DiskAttachmentCapacityAvailableType")
    assert (cap["status"], cap["reason"], cap["message"]) == (
        "False", "CapacityReached", 'Can not attach 17 block devices (16 is maximum) to `VirtualMachine` "full"')
    att = condition(waiting, "Attached")
    assert (att["status"], att["reason"], att["message"]) == (
        "False", "NotAttached", "Virtual machine block device capacity reached.")
    dvp.delete(R.VMBDA, "att-1", ns)  # a slot frees: the waiting attachment goes on by itself
    attached = dvp.wait_for(R.VMBDA, "att-2", phase_is("Attached"), WAIT, ns)
    assert condition(attached, "DiskAttachmentCapacityAvailableType")["status"] == "True"


def test_vm_refuses_more_than_sixteen_static_devices(dvp, ns):
    import pytest
    from dvp_common.kube import Invalid

    with pytest.raises(Invalid, match="16"):
        dvp.create(R.VIRTUAL_MACHINE, vm("too-many", [f"d{i}" for i in range(17)]), ns)

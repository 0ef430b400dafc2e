# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Deleting a machine: never stuck, never touching what is not this machine's."""

from __future__ import annotations

import pytest
from capdvp import resources as r
from capdvp.controllers.context import DONE, Result
from dvp_common.kube import Forbidden, Transient

from testkit.capdvp.world import DVP_NS, NS, UUID


def provisioned(world, name="w-1"):
    world.capi_machine(name)
    world.reconcile(name)
    world.vm_phase(name, "Running")
    world.reconcile(name)


def hold(world, res, name):
    """DVP keeps the object (a finalizer of its own) until release()."""
    obj = world.dvp.peek(res, name, DVP_NS)
    obj["metadata"]["finalizers"] = ["virtualization.deckhouse.io/protection"]
    world.dvp.put(res, obj, DVP_NS)


def release(world, res, name):
    world.dvp.client.patch(res, name, {"metadata": {"finalizers": None}}, DVP_NS)


def csi_volume(world, vm="w-1", disk="pvc-1"):
    world.dvp.put(r.VIRTUAL_DISK, {"metadata": {"name": disk, "labels": {
        "dvp.deckhouse.io/cluster-uuid": UUID, "dvp.deckhouse.io/component": "csi"}},
        "spec": {"persistentVolumeClaim": {"size": "1Gi"}}}, DVP_NS)
    world.dvp.put(r.VMBDA, {"metadata": {"name": f"vmbda-{disk}-{vm}", "labels": {
        "dvp.deckhouse.io/cluster-uuid": UUID, "dvp.deckhouse.io/component": "csi"}},
        "spec": {"virtualMachineName": vm, "blockDeviceRef": {"kind": "VirtualDisk", "name": disk}}}, DVP_NS)
    world.dvp.set_status(r.VIRTUAL_MACHINE, vm, DVP_NS, {"blockDeviceRefs": [
        {"kind": "VirtualDisk", "name": f"{vm}-boot", "hotplugged": False, "attached": True},
        {"kind": "VirtualDisk", "name": disk, "hotplugged": True, "attached": True,
         "virtualMachineBlockDeviceAttachmentName": f"vmbda-{disk}-{vm}"}]})


def test_delete_removes_vm_disks_secret_and_finalizer(world):
    provisioned(world)
    world.delete_machine("w-1")
    assert world.reconcile("w-1") == Result(requeue_after=5.0)  # VM deletion issued; its watch event follows
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1") is None
    assert world.names(r.VIRTUAL_MACHINE) == world.names(r.VIRTUAL_DISK) == world.names(r.SECRET) == []


def test_hot_plugged_csi_volume_is_detached_and_kept(world):
    provisioned(world)
    csi_volume(world)
    hold(world, r.VIRTUAL_MACHINE, "w-1")
    world.delete_machine("w-1")
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert ("delete", "VirtualMachineBlockDeviceAttachment", "vmbda-pvc-1-w-1") in world.dvp.calls
    assert world.dvp.peek(r.VIRTUAL_DISK, "pvc-1", DVP_NS) is not None
    release(world, r.VIRTUAL_MACHINE, "w-1")
    world.reconcile("w-1")
    assert world.dm("w-1") is None
    assert world.names(r.VIRTUAL_DISK) == ["pvc-1"]


def test_attachment_of_another_cluster_is_not_detached(world):
    provisioned(world)
    csi_volume(world)
    vmbda = world.dvp.peek(r.VMBDA, "vmbda-pvc-1-w-1", DVP_NS)
    vmbda["metadata"]["labels"]["dvp.deckhouse.io/cluster-uuid"] = "someone-else"
    world.dvp.put(r.VMBDA, vmbda, DVP_NS)
    hold(world, r.VIRTUAL_MACHINE, "w-1")
    world.delete_machine("w-1")
    world.reconcile("w-1")
    assert ("delete", "VirtualMachineBlockDeviceAttachment", "vmbda-pvc-1-w-1") not in world.dvp.calls


def test_vm_already_gone_releases_at_once(world):
    provisioned(world)
    world.dvp.client.delete(r.VIRTUAL_MACHINE, "w-1", DVP_NS)  # garbage collection takes the disks and the Secret too
    world.delete_machine("w-1")
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1") is None


def test_machine_deleted_before_anything_was_created(world):
    world.capi_machine("w-1", bootstrap=False)
    world.reconcile("w-1")
    world.delete_machine("w-1")
    world.reconcile("w-1")
    assert world.dm("w-1") is None
    assert world.dvp.writes() == []


def test_vm_stuck_deleting_is_orphaned_after_the_timeout(world):
    provisioned(world)
    hold(world, r.VIRTUAL_MACHINE, "w-1")
    world.delete_machine("w-1")
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    world.clock.advance(599)
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert world.dvp.count("delete") == 1  # the VM, once: a deleting VM is not deleted again
    world.clock.advance(2)
    assert world.reconcile("w-1") == DONE
    dm = world.guest.peek(r.DECKHOUSE_MACHINE, "w-1", NS)
    assert dm is None  # released; the annotations were written just before


def test_orphan_annotations_are_written_before_release(world):
    provisioned(world)
    hold(world, r.VIRTUAL_MACHINE, "w-1")
    world.delete_machine("w-1")
    world.reconcile("w-1")
    world.clock.advance(601)
    patches = []
    real = world.guest.client.patch

    def spy(res, name, body, namespace=None, **kw):
        patches.append(body)
        return real(res, name, body, namespace, **kw)

    world.guest.client.patch = spy
    world.reconcile("w-1")
    annotations = patches[0]["metadata"]["annotations"]
    assert annotations["dvp.deckhouse.io/orphaned-vm"] == "w-1"
    assert annotations["dvp.deckhouse.io/orphaned-vm-timestamp"] == "2026-12-02T12:10:01Z"
    assert annotations["dvp.deckhouse.io/orphaned-disk-" + __import__("hashlib").sha1(b"w-1-boot").hexdigest()[:4]] \
        == "w-1-boot"
    assert patches[-1]["metadata"]["finalizers"] == []


def test_disk_stuck_deleting_is_orphaned_after_its_own_timeout(world):
    provisioned(world)
    hold(world, r.VIRTUAL_DISK, "w-1-boot")
    world.dvp.client.delete(r.VIRTUAL_MACHINE, "w-1", DVP_NS)
    world.delete_machine("w-1")
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    world.clock.advance(600 + 299)
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    world.clock.advance(2)
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1") is None


def test_dvp_unreachable_is_retried_until_the_deadline_then_released(world):
    provisioned(world)
    world.delete_machine("w-1")
    world.dvp.fail("get", "VirtualMachine", Transient("connection refused"))
    with pytest.raises(Transient):
        world.reconcile("w-1")
    assert world.dm("w-1") is not None
    world.clock.advance(901)
    world.dvp.fail("get", "VirtualMachine", Forbidden("credentials revoked"))
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1") is None


def test_only_this_machines_disks_are_deleted(world):
    provisioned(world, "w-1")
    provisioned(world, "w-2")
    world.dvp.put(r.VIRTUAL_DISK, {"metadata": {"name": "w-1-additional-disk-7", "labels": {
        "dvp.deckhouse.io/cluster-uuid": "other", "dvp.deckhouse.io/component": "capdvp",
        "dvp.deckhouse.io/hostname": "w-1"}}}, DVP_NS)
    world.dvp.client.delete(r.VIRTUAL_MACHINE, "w-1", DVP_NS)
    world.delete_machine("w-1")
    world.reconcile("w-1")
    assert world.names(r.VIRTUAL_DISK) == ["w-1-additional-disk-7", "w-2-additional-disk-0", "w-2-boot"]
    assert world.names(r.VIRTUAL_MACHINE) == ["w-2"]


def test_crash_restart_during_delete_keeps_the_deadline(world):
    """The deadline comes from deletionTimestamp: a fresh reconciler after 601 s orphans at once."""
    from capdvp.controllers.machine import MachineReconciler
    provisioned(world)
    hold(world, r.VIRTUAL_MACHINE, "w-1")
    world.delete_machine("w-1")
    world.reconcile("w-1")
    world.clock.advance(601)
    assert MachineReconciler(world.ctx).reconcile(NS, "w-1") == DONE
    assert world.dm("w-1") is None

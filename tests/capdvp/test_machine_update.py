# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""In-place updates of a running machine: hot, warm (Stop -> patch -> Start), recreate refused."""

from __future__ import annotations

import pytest
from capdvp import resources as r
from capdvp.controllers.context import DONE, Result
from capdvp.controllers.machine_update import FAILED_GENERATION, WARM_UPDATE

from testkit.capdvp.world import DVP_NS, NS, UUID
from testkit.harness.dvp_answers import webhook_denial


def provisioned(world, name="w-1"):
    world.capi_machine(name)
    world.reconcile(name)
    world.vm_phase(name, "Running")
    world.reconcile(name)


def change(world, name="w-1", **spec):
    dm = world.dm(name)
    world.guest.client.patch(r.DECKHOUSE_MACHINE, name, {"spec": spec}, NS)
    return dm


def play_vmops(world):
    """What DVP does with our operations: Stop stops the VM, Start starts it."""
    for op in world.dvp.items(r.VMOP):
        if (op.get("status") or {}).get("phase") == "Completed":
            continue
        if op["metadata"]["name"].startswith("admin-"):
            continue
        world.vm_phase(op["spec"]["virtualMachineName"], "Stopped" if op["spec"]["type"] == "Stop" else "Running")
        world.dvp.set_status(r.VMOP, op["metadata"]["name"], DVP_NS, {"phase": "Completed"})


def test_hot_update_patches_policies_without_a_restart(world):
    provisioned(world)
    change(world, runPolicy="AlwaysOn", liveMigrationPolicy="AlwaysSafe")
    assert world.reconcile("w-1") == DONE
    vm = world.vm("w-1")
    assert (vm["spec"]["runPolicy"], vm["spec"]["liveMigrationPolicy"]) == ("AlwaysOn", "AlwaysSafe")
    assert world.dvp.items(r.VMOP) == []
    cond = world.condition("w-1", "InPlaceUpdate")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "True", "UpdateApplied", "applied runPolicy, liveMigrationPolicy")
    assert world.dm("w-1")["status"]["ready"] is True


def test_hot_update_adds_a_disk_through_an_attachment(world):
    provisioned(world)
    change(world, additionalDisks=[{"size": "10Gi", "storageClass": "slow"}, {"size": "5Gi"}])
    world.reconcile("w-1")
    disk = world.dvp.peek(r.VIRTUAL_DISK, "w-1-additional-disk-1", DVP_NS)
    assert disk["spec"] == {"persistentVolumeClaim": {"size": "5Gi"}}
    assert disk["metadata"]["labels"]["dvp.deckhouse.io/hostname"] == "w-1"
    vmbda = world.dvp.peek(r.VMBDA, "vmbda-w-1-additional-disk-1-w-1", DVP_NS)
    assert vmbda["spec"] == {"virtualMachineName": "w-1",
                             "blockDeviceRef": {"kind": "VirtualDisk", "name": "w-1-additional-disk-1"}}
    assert vmbda["metadata"]["labels"]["dvp.deckhouse.io/cluster-uuid"] == UUID
    writes = world.dvp.writes()
    world.reconcile("w-1")
    assert world.dvp.writes() == writes  # done once


def test_warm_update_stops_patches_and_starts(world):
    provisioned(world)
    change(world, cpu={"cores": 4, "cpuFraction": "100%"}, memory="8Gi", rootDiskSize="30Gi")
    generation = world.dm("w-1")["metadata"]["generation"]
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert [o["metadata"]["name"] for o in world.dvp.items(r.VMOP)] == [f"w-1-stop-g{generation}"]
    assert world.dm("w-1")["metadata"]["annotations"][WARM_UPDATE].startswith(f"{generation}@")
    assert world.condition("w-1", "InPlaceUpdate")["reason"] == "StoppingForUpdate"
    assert world.dm("w-1")["status"]["ready"] is False
    assert world.vm("w-1")["spec"]["cpu"] == {"cores": 2, "coreFraction": "50%"}  # not while running
    play_vmops(world)
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    vm = world.vm("w-1")
    assert vm["spec"]["cpu"] == {"cores": 4, "coreFraction": "100%"} and vm["spec"]["memory"] == {"size": "8Gi"}
    assert world.dvp.peek(r.VIRTUAL_DISK, "w-1-boot", DVP_NS)["spec"]["persistentVolumeClaim"]["size"] == "30Gi"
    assert sorted(o["spec"]["type"] for o in world.dvp.items(r.VMOP)) == ["Start", "Stop"]
    assert world.condition("w-1", "InPlaceUpdate")["reason"] == "StartingAfterUpdate"
    play_vmops(world)
    assert world.reconcile("w-1") == DONE
    dm = world.dm("w-1")
    assert WARM_UPDATE not in (dm["metadata"].get("annotations") or {})
    assert dm["status"]["ready"] is True
    assert world.condition("w-1", "InPlaceUpdate")["reason"] == "UpdateApplied"
    assert len(world.dvp.items(r.VMOP)) == 2


def test_warm_update_survives_a_crash_after_the_patch(world):
    """Patched but the Start never got created: the next reconcile sees no diff, a stopped VM, and starts it."""
    provisioned(world)
    change(world, memory="8Gi")
    world.reconcile("w-1")
    play_vmops(world)
    real = world.dvp.client.create

    def no_start(res, body, namespace=None, **kw):
        if res.kind == "VirtualMachineOperation" and body["spec"]["type"] == "Start":
            raise RuntimeError("crash")
        return real(res, body, namespace, **kw)

    world.dvp.client.create = no_start
    with pytest.raises(RuntimeError):
        world.reconcile("w-1")
    world.dvp.client.create = real
    assert world.vm("w-1")["spec"]["memory"] == {"size": "8Gi"}
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert sorted(o["spec"]["type"] for o in world.dvp.items(r.VMOP)) == ["Start", "Stop"]
    play_vmops(world)
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1")["status"]["ready"] is True


def test_user_stopped_vm_is_not_started_by_us(world):
    provisioned(world)
    world.vm_phase("w-1", "Stopped")
    world.reconcile("w-1")
    assert world.dvp.items(r.VMOP) == []
    assert world.condition("w-1")["reason"] == "VMInStoppedState"


def ops(world):
    return sorted((o["spec"]["type"], o["metadata"]["name"]) for o in world.dvp.items(r.VMOP))


def test_warm_update_that_never_stops_is_abandoned_and_our_stop_withdrawn(world):
    provisioned(world)
    change(world, memory="8Gi")
    generation = world.dm("w-1")["metadata"]["generation"]
    world.reconcile("w-1")
    world.clock.advance(601)
    assert world.reconcile("w-1") == DONE
    # DVP never lets a Start supersede a Stop: the unfinished Stop is deleted; the VM still runs, so no Start.
    assert ops(world) == []
    cond = world.condition("w-1", "InPlaceUpdate")
    assert (cond["status"], cond["reason"]) == ("False", "UpdateTimedOut")
    annotations = world.dm("w-1")["metadata"]["annotations"]
    assert annotations[FAILED_GENERATION] == str(generation) and WARM_UPDATE not in annotations
    world.reconcile("w-1")
    assert ops(world) == []  # that generation is not retried


def admin_vmop(world, op="Migrate", phase="InProgress", name="admin-migrate"):
    world.dvp.put(r.VMOP, {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachineOperation",
                           "metadata": {"name": name}, "spec": {"type": op, "virtualMachineName": "w-1"},
                           "status": {"phase": phase}}, DVP_NS)


def test_a_stopping_vm_at_the_deadline_is_started_once_the_stop_is_withdrawn(world):
    provisioned(world)
    change(world, memory="8Gi")
    generation = world.dm("w-1")["metadata"]["generation"]
    world.reconcile("w-1")
    world.vm_phase("w-1", "Stopping")
    # Meanwhile an admin's operation holds the VM: DVP would refuse our Start with 403.
    admin_vmop(world)
    world.clock.advance(601)
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert ops(world) == [("Migrate", "admin-migrate")]  # our Stop is gone, the Start waits
    assert world.dm("w-1")["metadata"]["annotations"][FAILED_GENERATION] == str(generation)  # mark written first
    assert "waiting for VirtualMachineOperation admin-migrate" in world.condition("w-1", "InPlaceUpdate")["message"]
    world.dvp.set_status(r.VMOP, "admin-migrate", DVP_NS, {"phase": "Completed"})
    world.vm_phase("w-1", "Stopped")
    world.reconcile("w-1")
    assert ops(world) == [("Migrate", "admin-migrate"), ("Start", f"w-1-start-g{generation}")]
    play_vmops(world)
    assert world.reconcile("w-1") == DONE
    assert WARM_UPDATE not in world.dm("w-1")["metadata"]["annotations"]
    assert world.vm("w-1")["spec"]["memory"] == {"size": "4Gi"}  # abandoned: never patched


def test_the_abandon_path_survives_dvps_403_on_the_start(world):
    provisioned(world)
    change(world, memory="8Gi")
    generation = world.dm("w-1")["metadata"]["generation"]
    world.reconcile("w-1")
    world.vm_phase("w-1", "Stopped")
    world.clock.advance(601)
    world.dvp.fail("create", "VirtualMachineOperation", webhook_denial(
        "VirtualMachineOperation", "VirtualMachine w-1 has an operation in progress", f"w-1-start-g{generation}"))
    world.dvp.set_status(r.VMOP, f"w-1-stop-g{generation}", DVP_NS, {"phase": "Failed",
                                                                       "failureMessage": "stop timed out"})
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert world.dm("w-1")["metadata"]["annotations"][FAILED_GENERATION] == str(generation)
    assert "DVP refused the Start operation: admission webhook" in world.condition("w-1", "InPlaceUpdate")["message"]
    world.reconcile("w-1")
    assert ("Start", f"w-1-start-g{generation}") in ops(world)


def test_no_operation_while_another_on_the_vm_is_unfinished(world):
    provisioned(world)
    admin_vmop(world)
    change(world, memory="8Gi")
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert ops(world) == [("Migrate", "admin-migrate")]
    cond = world.condition("w-1", "InPlaceUpdate")
    assert (cond["reason"], cond["message"]) == (
        "WaitingForVMOperation", "waiting for VirtualMachineOperation admin-migrate (Migrate) on the VM to finish")
    world.dvp.set_status(r.VMOP, "admin-migrate", DVP_NS, {"phase": "Completed"})
    world.reconcile("w-1")
    assert [t for t, _ in ops(world)] == ["Migrate", "Stop"]


def test_warm_update_under_always_on_patches_and_restarts(world):
    # DVP permits only Restart under runPolicy AlwaysOn (a Stop would fail): patch, then Restart applies it.
    provisioned(world)
    change(world, runPolicy="AlwaysOn")
    world.reconcile("w-1")
    change(world, memory="8Gi")
    generation = world.dm("w-1")["metadata"]["generation"]
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    assert world.vm("w-1")["spec"]["memory"] == {"size": "8Gi"}
    assert ops(world) == [("Restart", f"w-1-restart-g{generation}")]
    assert world.condition("w-1", "InPlaceUpdate")["reason"] == "RestartingForUpdate"
    assert world.reconcile("w-1") == Result(requeue_after=5.0)  # until DVP completes it
    play_vmops(world)
    assert world.reconcile("w-1") == DONE
    assert WARM_UPDATE not in world.dm("w-1")["metadata"]["annotations"]
    assert world.condition("w-1", "InPlaceUpdate")["reason"] == "UpdateApplied"
    assert world.dm("w-1")["status"]["ready"] is True


def test_warm_update_under_always_off_is_refused_with_a_condition(world):
    provisioned(world)
    world.dvp.client.patch(r.VIRTUAL_MACHINE, "w-1", {"spec": {"runPolicy": "AlwaysOff"}}, DVP_NS)
    change(world, memory="8Gi", runPolicy="AlwaysOff")
    assert world.reconcile("w-1") == DONE
    assert ops(world) == []
    cond = world.condition("w-1", "InPlaceUpdate")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "UpdateNotPossible", "memory need a restart, which DVP does not offer for runPolicy AlwaysOff; "
        "change runPolicy or replace the machine")


def test_dvp_failing_our_stop_abandons_the_generation_with_dvps_message(world):
    provisioned(world)
    change(world, memory="8Gi")
    generation = world.dm("w-1")["metadata"]["generation"]
    world.reconcile("w-1")
    world.dvp.set_status(r.VMOP, f"w-1-stop-g{generation}", DVP_NS, {
        "phase": "Failed", "failureMessage": 'operation "Stop" not permitted for vm.spec.runPolicy="AlwaysOn"'})
    assert world.reconcile("w-1") == DONE
    cond = world.condition("w-1", "InPlaceUpdate")
    assert cond["message"] == (f"DVP failed VirtualMachineOperation w-1-stop-g{generation}: operation \"Stop\" not "
                               f"permitted for vm.spec.runPolicy=\"AlwaysOn\"; update of generation {generation} "
                               "abandoned")
    assert world.dm("w-1")["metadata"]["annotations"][FAILED_GENERATION] == str(generation)


def test_recreate_changes_are_reported_not_applied(world):
    provisioned(world)
    change(world, bootloader="BIOS", rootDiskSize="10Gi")
    vm_before = world.vm("w-1")
    world.reconcile("w-1")
    assert world.vm("w-1")["spec"] == vm_before["spec"]
    cond = world.condition("w-1", "InPlaceUpdate")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "RecreateRequired", "bootloader, rootDiskSize cannot change in place; replace the machine")
    assert world.dm("w-1")["status"]["ready"] is True


def test_a_condition_left_by_a_stale_read_is_settled(world):
    """A pass working from a stale cache may write StartingAfterUpdate after the update finished; the next pass
    (nothing to apply, nothing in flight) settles it."""
    provisioned(world)
    dm = world.dm("w-1")
    dm["status"]["conditions"].append({"type": "InPlaceUpdate", "status": "False", "reason": "StartingAfterUpdate",
                                       "message": "", "lastTransitionTime": "2026-12-02T11:00:00Z"})
    world.guest.put(r.DECKHOUSE_MACHINE, dm, NS)
    world.reconcile("w-1")
    cond = world.condition("w-1", "InPlaceUpdate")
    assert (cond["status"], cond["reason"]) == ("True", "UpdateApplied")
    assert world.dvp.items(r.VMOP) == []


def test_a_63_character_machine_gets_short_disk_names_that_hot_plug_finds_again(world):
    # DVP refuses label values over 63 characters; disk names are label values (virtualDiskName,
    # virtualMachineDiskName). The old names (<machine>-boot, <machine>-additional-disk-<i>) ran to 83.
    name = "w" * 63
    provisioned(world, name)
    change(world, name, additionalDisks=[{"size": "10Gi", "storageClass": "slow"}, {"size": "5Gi"}])
    world.reconcile(name)
    disks = sorted(world.names(r.VIRTUAL_DISK))
    assert disks == sorted([f"{'w' * 52}-{h}" for h in (
        _digest(f"{name}-boot"), _digest(f"{name}-additional-disk-0"), _digest(f"{name}-additional-disk-1"))])
    for res in (r.VIRTUAL_DISK, r.VMBDA, r.VIRTUAL_MACHINE, r.SECRET):
        for obj in world.dvp.items(res):
            too_long = {k: v for k, v in obj["metadata"]["labels"].items() if len(v) > 63}
            assert too_long == {}, f"{res.kind} {obj['metadata']['name']}"
    (vmbda,) = world.dvp.items(r.VMBDA)
    assert vmbda["spec"]["blockDeviceRef"]["name"] == f"{'w' * 52}-{_digest(f'{name}-additional-disk-1')}"
    writes = world.dvp.writes()
    world.reconcile(name)
    assert world.dvp.writes() == writes  # the short names are found again: nothing is made twice


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()[:10]


def test_dvp_refusing_the_new_size_abandons_the_update_and_starts_the_vm_again(world):
    # DVP's VM webhook checks the class's sizing policy on every write: the patch after Stop is a 403.
    provisioned(world)
    change(world, memory="3Gi")
    generation = world.dm("w-1")["metadata"]["generation"]
    world.reconcile("w-1")
    play_vmops(world)  # stopped
    why = "requested VM memory 3Gi does not match the sizing policy of VirtualMachineClass generic"
    world.dvp.fail("patch", "VirtualMachine", webhook_denial("VirtualMachine", why, "w-1"))
    assert world.reconcile("w-1") == Result(requeue_after=5.0)
    cond = world.condition("w-1", "InPlaceUpdate")
    assert (cond["reason"], cond["message"]) == ("UpdateTimedOut", (
        'DVP refused the update: admission webhook "vm.virtualization-controller.validate.d8-virtualization" '
        f"denied the request: {why}; update of generation {generation} abandoned"))
    assert ("Start", f"w-1-start-g{generation}") in ops(world)
    play_vmops(world)
    assert world.reconcile("w-1") == DONE
    assert world.vm("w-1")["spec"]["memory"] == {"size": "4Gi"}
    assert WARM_UPDATE not in world.dm("w-1")["metadata"]["annotations"]
    assert world.dm("w-1")["status"]["ready"] is True

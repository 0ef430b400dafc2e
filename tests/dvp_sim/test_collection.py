# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Garbage collection by ownerReference on the DVP API is Kubernetes' own: the harness runs kube-controller-
manager's garbage collector beside every DVP kube-apiserver (harness.controller_manager), as the parent cluster
does; the simulator plays only what DVP's controllers add (the lease released after its address). Real API only:
the in-memory API has no controller-manager. The collector is asynchronous: every wait is a bounded watch."""

from __future__ import annotations

from dvp_common.dvp import resources as R

from sim.builders import WAIT, cloud_init, disk, gone, phase_is, vm

HOLD = "test.cloud-provider-dvp/hold"  # a finalizer of the test's own: the dependent's deletion waits for it
FOREGROUND, ORPHAN = "foregroundDeletion", "orphan"


def owned_machine(dvp, ns, name, disk_finalizers=()):
    machine = dvp.create(R.VIRTUAL_MACHINE, vm(name, [f"{name}-boot"], user_data=f"cloud-init-{name}"), ns)
    boot = disk(f"{name}-boot", "1Gi", owner=machine)
    if disk_finalizers:
        boot["metadata"]["finalizers"] = list(disk_finalizers)
    dvp.create(R.VIRTUAL_DISK, boot, ns)
    dvp.create(R.SECRET, cloud_init(f"cloud-init-{name}", owner=machine), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, name, phase_is("Running"), WAIT, ns)
    return machine


def dependents(name):
    """What the VM `name` owns: its disk and Secret (the builders' ownerReferences, blockOwnerDeletion true) and
    the address the simulator made for it, as DVP does."""
    return ((R.VIRTUAL_DISK, f"{name}-boot"), (R.SECRET, f"cloud-init-{name}"), (R.VIRTUAL_MACHINE_IP_ADDRESS, name))


def test_deleting_a_vm_deletes_its_disks_secret_and_address(dvp, ns, sim):
    owned_machine(dvp, ns, "owner")
    address = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "owner", lambda o: (o or {}).get("status", {}).get("address"),
                           WAIT, ns)["status"]["address"]
    lease = "ip-" + address.replace(".", "-")
    assert dvp.get(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease)["spec"]["virtualMachineIPAddressRef"] == {
        "namespace": ns, "name": "owner"}
    dvp.delete(R.VIRTUAL_MACHINE, "owner", ns)  # background propagation: the owner goes first, then its dependents
    for res, name in dependents("owner"):
        assert dvp.wait_for(res, name, gone, WAIT, ns) is None
    # the lease goes after its address (DVP's part: the simulator releases it on the address's DELETED event)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease, gone, WAIT) is None


def test_foreground_deletion_keeps_the_owner_until_its_blocking_dependents_are_gone(dvp, ns, sim):
    owned_machine(dvp, ns, "fg", disk_finalizers=[HOLD])
    dvp.delete(R.VIRTUAL_MACHINE, "fg", ns, propagation="Foreground")
    # the collector deletes the dependent; the held disk stays (deletionTimestamp set) and so does its owner
    deleting = dvp.wait_for(R.VIRTUAL_DISK, "fg-boot", lambda o: o and o["metadata"].get("deletionTimestamp"),
                            WAIT, ns)
    owner = dvp.get(R.VIRTUAL_MACHINE, "fg", ns)
    assert owner["metadata"].get("deletionTimestamp") and FOREGROUND in owner["metadata"]["finalizers"]
    assert dvp.wait_for(R.SECRET, "cloud-init-fg", gone, WAIT, ns) is None  # not held: gone meanwhile
    assert FOREGROUND in dvp.get(R.VIRTUAL_MACHINE, "fg", ns)["metadata"]["finalizers"]  # the disk still holds it
    dvp.patch(R.VIRTUAL_DISK, "fg-boot", {"metadata": {
        "finalizers": [f for f in deleting["metadata"]["finalizers"] if f != HOLD] or None}}, ns)
    assert dvp.wait_for(R.VIRTUAL_DISK, "fg-boot", gone, WAIT, ns) is None
    assert dvp.wait_for(R.VIRTUAL_MACHINE, "fg", gone, WAIT, ns) is None


def test_orphan_deletion_keeps_dependents_without_their_owner_reference(dvp, ns, sim):
    owned_machine(dvp, ns, "orph")
    dvp.delete(R.VIRTUAL_MACHINE, "orph", ns, propagation="Orphan")
    assert dvp.wait_for(R.VIRTUAL_MACHINE, "orph", gone, WAIT, ns) is None
    # the collector removes the references before the owner's orphan finalizer, so the owner's end shows it
    for res, name in dependents("orph"):
        kept = dvp.get(res, name, ns)
        assert "ownerReferences" not in kept["metadata"], (res.kind, kept["metadata"])
        assert not kept["metadata"].get("deletionTimestamp"), (res.kind, kept["metadata"])
    assert dvp.get(R.VIRTUAL_DISK, "orph-boot", ns)["status"]["phase"] == "Ready"


def test_a_dependent_of_an_already_deleted_owner_is_collected(dvp, ns, sim):
    machine = owned_machine(dvp, ns, "late")
    dvp.delete(R.VIRTUAL_MACHINE, "late", ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "late", gone, WAIT, ns)
    dvp.create(R.VIRTUAL_DISK, disk("late-extra", "1Gi", owner=machine), ns)  # names a uid that is gone
    assert dvp.wait_for(R.VIRTUAL_DISK, "late-extra", gone, WAIT, ns) is None


def test_the_collector_runs_without_the_simulator(dvp, ns):
    """Kubernetes' collector, not DVP's: no simulator runs in this namespace, a dependent still goes."""
    owner = dvp.create(R.SECRET, {"metadata": {"name": "owner"}, "type": "Opaque"}, ns)
    dvp.create(R.VIRTUAL_DISK, disk("dependent", "1Gi", owner=owner), ns)
    dvp.delete(R.SECRET, "owner", ns)
    assert dvp.wait_for(R.VIRTUAL_DISK, "dependent", gone, WAIT, ns) is None

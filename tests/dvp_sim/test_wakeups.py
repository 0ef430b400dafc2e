# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which reconciles a change wakes: the objects that read it, never the whole namespace."""

from __future__ import annotations

from sim import SimConfig
from sim.builders import cloud_init, disk, vm, vmbda
from sim.wakeups import related
from sim.world import World

NS = "ns"


def world_of(**kinds: list[dict]) -> World:
    """A World over fixed caches (kind -> objects), every object in namespace NS unless cluster-scoped."""
    caches: dict[str, list[dict]] = {k: [] for k in (
        "VirtualDisk", "VirtualMachine", "VirtualMachineBlockDeviceAttachment", "VirtualMachineOperation",
        "VirtualDiskSnapshot", "VirtualImage", "ClusterVirtualImage", "VirtualMachineIPAddress",
        "VirtualMachineIPAddressLease", "Secret", "Service", "StorageClass", "VirtualMachineClass", "ResourceQuota",
        "ServiceWithHealthchecks", "EndpointSlice")}
    for kind, objs in kinds.items():
        for obj in objs:
            obj["metadata"].setdefault("namespace", NS)
            obj["metadata"].setdefault("uid", f"uid-{obj['metadata']['name']}")
        caches[kind] = objs
    return World({k: (lambda objs=objs: list(objs)) for k, objs in caches.items()})


def machines(n: int) -> dict[str, list[dict]]:
    return {"VirtualMachine": [vm(f"m{i}", [f"m{i}-boot"], user_data=f"cloud-init-m{i}") for i in range(n)],
            "VirtualDisk": [disk(f"m{i}-boot", "1Gi") for i in range(n)],
            "Secret": [cloud_init(f"cloud-init-m{i}") for i in range(n)]}


def keys(world: World, kind: str, *versions: dict, quota: int | None = None) -> set[tuple[str, str, str]]:
    return set(related(world, SimConfig(quota_bytes=quota), kind, list(versions)))


def test_a_disk_wakes_the_vm_using_it_not_its_neighbours():
    objs = machines(5)
    world = world_of(**objs)
    assert keys(world, "VirtualDisk", objs["VirtualDisk"][2]) == {("VirtualMachine", NS, "m2")}


def test_a_secret_wakes_the_vm_it_provisions():
    objs = machines(5)
    world = world_of(**objs)
    assert keys(world, "Secret", objs["Secret"][3]) == {("VirtualMachine", NS, "m3")}


def test_a_vm_wakes_its_disks_address_and_attachments():
    objs = machines(3)
    objs["VirtualMachineBlockDeviceAttachment"] = [vmbda("a1", "m1", "extra"), vmbda("a2", "m2", "other")]
    world = world_of(**objs)
    assert keys(world, "VirtualMachine", objs["VirtualMachine"][1]) == {
        ("VirtualDisk", NS, "m1-boot"), ("VirtualMachineIPAddress", NS, "m1"),
        ("VirtualMachineBlockDeviceAttachment", NS, "a1")}


def test_a_reference_just_removed_still_wakes_its_former_target():
    old = vm("m0", ["m0-boot"])
    old["metadata"].update(namespace=NS, uid="uid-m0")
    old["status"] = {"blockDeviceRefs": [{"kind": "VirtualDisk", "name": "hot", "attached": True}]}
    new = {**old, "status": {"blockDeviceRefs": []}}
    woken = keys(world_of(VirtualMachine=[new]), "VirtualMachine", old, new)
    assert ("VirtualDisk", NS, "hot") in woken  # its attachedToVirtualMachines must drop the VM


def test_under_a_quota_a_disk_wakes_every_disk_of_the_namespace():
    objs = machines(4)
    world = world_of(**objs)
    woken = keys(world, "VirtualDisk", objs["VirtualDisk"][0], quota=10 * 2**30)
    assert {k for k in woken if k[0] == "VirtualDisk"} == {("VirtualDisk", NS, f"m{i}-boot") for i in range(4)}


def test_a_resource_quota_wakes_the_disks_of_its_namespace_and_they_wake_it():
    objs = machines(2)
    quota = {"metadata": {"name": "project"}, "spec": {"hard": {"requests.storage": "10Gi"}}}
    world = world_of(**objs, ResourceQuota=[quota])
    assert keys(world, "ResourceQuota", quota) == {("VirtualDisk", NS, "m0-boot"), ("VirtualDisk", NS, "m1-boot")}
    woken = keys(world, "VirtualDisk", objs["VirtualDisk"][0])
    assert {k for k in woken if k[0] != "VirtualMachine"} == {
        ("VirtualDisk", NS, "m0-boot"), ("VirtualDisk", NS, "m1-boot"), ("ResourceQuota", NS, "project")}


def test_a_storage_class_wakes_every_disk_and_vm():
    objs = machines(2)
    world = world_of(**objs)
    woken = keys(world, "StorageClass", {"metadata": {"name": "sc", "uid": "uid-sc"}})
    assert woken == {("VirtualDisk", NS, "m0-boot"), ("VirtualDisk", NS, "m1-boot"),
                     ("VirtualMachine", NS, "m0"), ("VirtualMachine", NS, "m1")}

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which objects to reconcile when one changes: those whose reconcile reads it, found by their references.

Waking every object of the namespace on every event made each event cost O(objects) reconciles (each O(objects)
itself): ~100 machines in one namespace kept the simulator busy far beyond its configured latencies. The
references followed here are exactly the reads of the domain reconcilers (domain/*.py), found through the
informer indexes (indexes.py), so an event costs O(its related objects), not O(namespace); the old and the new
version of a changed object both count, so a reference that was just removed still wakes its former target.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import indexes as ix
from .domain.addresses import lease_ref
from .settings import SimConfig
from .world import KINDS, World, meta, phase, spec, status

Key = tuple[str, str, str]

VD, VM, VMBDA, VMOP = "VirtualDisk", "VirtualMachine", "VirtualMachineBlockDeviceAttachment", "VirtualMachineOperation"
SNAPSHOT, IMAGE, VMIP, LEASE = "VirtualDiskSnapshot", "VirtualImage", "VirtualMachineIPAddress", \
    "VirtualMachineIPAddressLease"
# Cluster-scoped kinds a disk or VM of any namespace may wait for (rare changes: wake them all).
CLUSTER_TRIGGERS = ("StorageClass", "VirtualMachineClass", "ClusterVirtualImage")
SOURCE_KINDS = (IMAGE, "ClusterVirtualImage", SNAPSHOT)
QUOTA = "ResourceQuota"
SWHC = "ServiceWithHealthchecks"


def _key(kind: str, obj: dict) -> Key:
    return kind, meta(obj).get("namespace") or "", meta(obj)["name"]


def _in(world: World, kind: str, ns: str) -> list[dict]:
    return world.list(kind, ns if KINDS[kind].namespaced else None)


def _device_refs(vm: dict) -> list[dict]:
    return list(spec(vm).get("blockDeviceRefs") or []) + list(status(vm).get("blockDeviceRefs") or [])


def _ip_name(vm: dict) -> str:
    return spec(vm).get("virtualMachineIPAddressName") or meta(vm)["name"]


def _about_disk(world: World, ns: str, name: str, cfg: SimConfig) -> Iterator[Key]:
    """A disk's phase, capacity and attachedToVirtualMachines are read by the VMs and attachments using it
    (and their VMs), by its snapshots, and, under a quota, by every other disk of the namespace."""
    target = ix.ref(ns, VD, name)
    for vm in world.by(VM, ix.vm_devices, target):
        yield _key(VM, vm)
    for att in world.by(VMBDA, ix.vmbda_device, target):
        yield _key(VMBDA, att)
        yield VM, ns, spec(att).get("virtualMachineName", "")
    for snap in world.by(SNAPSHOT, ix.snapshot_disk, ix.in_ns(ns, name)):
        yield _key(SNAPSHOT, snap)
    quotas = world.by(QUOTA, ix.namespace, ns)
    if cfg.quota_bytes is not None or quotas:  # admission reads the namespace's total: O(disks) per disk event
        for other in _in(world, VD, ns):
            yield _key(VD, other)
    for quota in quotas:  # its status.used follows the disks (quota_status)
        yield _key(QUOTA, quota)


def _about_vm(world: World, ns: str, versions: list[dict]) -> Iterator[Key]:
    """A VM's spec and status are read by its disks (consumer, attachedToVirtualMachines), its address, its
    attachments and its operations."""
    names = {meta(v)["name"] for v in versions}
    for v in versions:
        for ref in _device_refs(v):
            if ref.get("kind") == VD and ref.get("name"):
                yield VD, ns, ref["name"]
        yield VMIP, ns, _ip_name(v)
    for kind in (VMBDA, VMOP):
        for vm_name in names:
            for obj in world.by(kind, ix.of_vm, ix.in_ns(ns, vm_name)):
                yield _key(kind, obj)


def _about_source(world: World, kind: str, ns: str, name: str) -> Iterator[Key]:
    """Images and snapshots are read by the disks made from them; images also by VMs and attachments."""
    target = ix.ref(ns, kind, name)  # a ClusterVirtualImage's serves every namespace
    for vd in world.by(VD, ix.disk_source, target):
        yield _key(VD, vd)
    if kind == SNAPSHOT:
        return
    for vm in world.by(VM, ix.vm_devices, target):
        yield _key(VM, vm)
    for att in world.by(VMBDA, ix.vmbda_device, target):
        yield _key(VMBDA, att)


def _about_address(world: World, ns: str, name: str) -> Iterator[Key]:
    """An address is read by the VMs using it and by its lease; a freed one may unblock a Pending address."""
    for vm in world.by(VM, ix.vm_address, ix.in_ns(ns, name)):
        yield _key(VM, vm)
    for lease in world.by(LEASE, ix.lease_address, ix.in_ns(ns, name)):
        yield _key(LEASE, lease)
    for other in world.by(VMIP, ix.address_unbound, ns):
        if phase(other) not in ("Bound", "Attached"):
            yield _key(VMIP, other)


def _about_lease(world: World, versions: list[dict], deleted: bool) -> Iterator[Key]:
    """A lease is read by its address; a deleted one returns its address to the pool of every Pending one."""
    for v in versions:
        ns, name = lease_ref(v)
        if name:
            yield VMIP, ns, name
    if deleted:
        for other in world.by(VMIP, ix.address_unbound, ix.UNBOUND_ANYWHERE):
            if phase(other) not in ("Bound", "Attached"):
                yield _key(VMIP, other)


def related(world: World, cfg: SimConfig, kind: str, versions: list[dict], deleted: bool = False) -> Iterator[Key]:
    """Reconcile keys (never the changed object itself) to wake after `versions` (old and new) of one object."""
    obj = versions[-1]
    ns, name = meta(obj).get("namespace") or "", meta(obj)["name"]
    if kind in CLUSTER_TRIGGERS:
        for peer in (VD, VM):
            for o in world.list(peer):
                yield _key(peer, o)
    if kind == VD:
        yield from _about_disk(world, ns, name, cfg)
    elif kind == VM:
        yield from _about_vm(world, ns, versions)
        for swhc in world.by(SWHC, ix.namespace, ns):  # its labels, phase and address decide the endpoints
            yield _key(SWHC, swhc)
    elif kind == VMBDA:
        for v in versions:
            yield VM, ns, spec(v).get("virtualMachineName", "")
            ref = spec(v).get("blockDeviceRef") or {}
            if ref.get("kind") == VD:
                yield VD, ns, ref.get("name", "")
        for vm_name in {spec(v).get("virtualMachineName") for v in versions}:
            for other in world.by(VMBDA, ix.of_vm, ix.in_ns(ns, vm_name)):  # the VM's device count changed
                if meta(other)["name"] != name:
                    yield _key(VMBDA, other)
    elif kind == QUOTA:  # a changed limit may admit the disks waiting for room
        for other in _in(world, VD, ns):
            yield _key(VD, other)
    elif kind == VMOP:
        for v in versions:
            yield VM, ns, spec(v).get("virtualMachineName", "")
    elif kind in SOURCE_KINDS:
        yield from _about_source(world, kind, ns, name)
    elif kind == VMIP:
        yield from _about_address(world, ns, name)
    elif kind == LEASE:
        yield from _about_lease(world, versions, deleted)
    elif kind in ("Service", "EndpointSlice"):  # a child's address and endpoints are read by its parent
        for v in versions:
            for ref in meta(v).get("ownerReferences") or []:
                if ref.get("kind") == SWHC:
                    yield SWHC, ns, ref.get("name", "")
    elif kind == "Secret":
        for vm in world.by(VM, ix.vm_secret, ix.in_ns(ns, name)):
            yield _key(VM, vm)

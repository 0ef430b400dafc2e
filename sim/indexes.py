# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulator's informer indexes: who refers to whom, so an event or a reconcile reads its few related
objects instead of scanning the namespace.

Scanning made every event and every reconcile O(objects of the namespace): at 1000 machines in one namespace a
VM's reconcile cost ~7 ms, a disk's ~8 ms, an address's ~11 ms, all spent copying and filtering lists. Each index
function maps an object to the values it is found under; `World.by(kind, fn, value)` answers from the informer's
index named after `fn` (or, over plain caches without indexes, by scanning with `fn` itself). Values name a
namespaced target as `<ns>/<Kind>/<name>` (`ref`) and a cluster-scoped one as `/<Kind>/<name>`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .world import Obj, meta, spec, status

IndexFn = Callable[[Obj], Iterable[str]]
CLUSTER_SCOPED = frozenset({"ClusterVirtualImage", "StorageClass", "VirtualMachineClass"})
UNBOUND_ANYWHERE = "*"  # address_unbound also files every unbound address here, whatever its namespace


def ref(ns: str | None, kind: str | None, name: str | None) -> str:
    """The index value of a reference from namespace `ns` to `kind`/`name`."""
    return f"{'' if kind in CLUSTER_SCOPED else ns or ''}/{kind or ''}/{name or ''}"


def in_ns(ns: str | None, name: str | None) -> str:
    return f"{ns or ''}/{name or ''}"


def _ns(obj: Obj) -> str:
    return meta(obj).get("namespace") or ""


def vm_devices(vm: Obj) -> list[str]:
    """Devices the VM's spec lists (disks, images)."""
    return [ref(_ns(vm), r.get("kind"), r.get("name")) for r in spec(vm).get("blockDeviceRefs") or []]


def vm_attached(vm: Obj) -> list[str]:
    """Devices the VM's status shows attached."""
    return [ref(_ns(vm), r.get("kind"), r.get("name")) for r in status(vm).get("blockDeviceRefs") or []
            if r.get("attached")]


def vm_address(vm: Obj) -> list[str]:
    return [in_ns(_ns(vm), spec(vm).get("virtualMachineIPAddressName") or meta(vm).get("name"))]


def vm_secret(vm: Obj) -> list[str]:
    name = ((spec(vm).get("provisioning") or {}).get("userDataRef") or {}).get("name")
    return [in_ns(_ns(vm), name)] if name else []


def of_vm(obj: Obj) -> list[str]:
    """Attachments and operations, by the VM they act on."""
    return [in_ns(_ns(obj), spec(obj).get("virtualMachineName"))]


def vmbda_device(att: Obj) -> list[str]:
    r = spec(att).get("blockDeviceRef") or {}
    return [ref(_ns(att), r.get("kind"), r.get("name"))]


def disk_source(vd: Obj) -> list[str]:
    ds = spec(vd).get("dataSource") or {}
    r = ds.get("objectRef") or {}
    return [ref(_ns(vd), r.get("kind"), r.get("name"))] if ds.get("type") == "ObjectRef" else []


def snapshot_disk(snap: Obj) -> list[str]:
    return [in_ns(_ns(snap), spec(snap).get("virtualDiskName"))]


def lease_address(lease: Obj) -> list[str]:
    r = spec(lease).get("virtualMachineIPAddressRef") or {}
    return [in_ns(r.get("namespace"), r.get("name"))]


def address_unbound(vmip: Obj) -> list[str]:
    """Addresses that may still take an address from the pool: their namespace, and UNBOUND_ANYWHERE."""
    if status(vmip).get("phase") in ("Bound", "Attached"):
        return []
    return [_ns(vmip), UNBOUND_ANYWHERE]


def namespace(obj: Obj) -> list[str]:
    """Kinds a namespace holds few of (quotas, health-checked services): every change of a disk or VM there reads
    them, so they are found by namespace rather than by filtering the whole kind."""
    return [_ns(obj)]


def service_ingress(svc: Obj) -> list[str]:
    return [i["ip"] for i in (status(svc).get("loadBalancer") or {}).get("ingress") or [] if i.get("ip")]


# Per kind, the indexes its informer keeps.
INDEXES: dict[str, tuple[IndexFn, ...]] = {
    "VirtualMachine": (vm_devices, vm_attached, vm_address, vm_secret),
    "VirtualMachineBlockDeviceAttachment": (of_vm, vmbda_device),
    "VirtualMachineOperation": (of_vm,),
    "VirtualDisk": (disk_source,),
    "VirtualDiskSnapshot": (snapshot_disk,),
    "VirtualMachineIPAddressLease": (lease_address,),
    "VirtualMachineIPAddress": (address_unbound,),
    "Service": (service_ingress,),
    "ResourceQuota": (namespace,),
    "ServiceWithHealthchecks": (namespace,),
}


def of(kind: str) -> tuple[IndexFn, ...]:
    return INDEXES.get(kind, ())

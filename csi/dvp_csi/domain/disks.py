# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reading DVP object state: VirtualDisk phases and failures, VMBDA phases, VM liveness."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc
from dvp_common.quantity import parse_quantity_or_none

from . import labels
from .errors import CsiError

READY_PHASES = frozenset({"Ready", "WaitForFirstConsumer"})
TERMINAL_READY_REASONS = frozenset({"ProvisioningFailed", "ProvisioningFailedTerminally", "PVCLost", "ImagePullFailed",
                                    "DatasourceIsNotFound", "StorageClassIsNotReady"})
QUOTA_REASON = "QuotaExceeded"
# A VM in these phases runs nothing, so its attachments can be dropped without waiting for the guest.
DEAD_VM_PHASES = frozenset({"Stopped", "Terminating"})


def _status(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return (obj or {}).get("status") or {}


def phase(obj: Mapping[str, Any] | None) -> str:
    return _status(obj).get("phase") or ""


def condition(obj: Mapping[str, Any] | None, ctype: str) -> Mapping[str, Any]:
    for c in _status(obj).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return {}


def disk_failure(disk: Mapping[str, Any]) -> CsiError | None:
    """A terminal provisioning failure of a disk as a CSI error, None while it may still become ready."""
    name = disk["metadata"]["name"]
    ready = condition(disk, "Ready")
    if ready.get("status") == "False" and ready.get("reason") == QUOTA_REASON:
        return CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"VirtualDisk {name}: quota exceeded: {ready.get('message', '')}")
    if phase(disk) == "Failed" or (ready.get("status") == "False" and ready.get("reason") in TERMINAL_READY_REASONS):
        return CsiError(grpc.StatusCode.INTERNAL,
                        f"VirtualDisk {name} failed: {ready.get('reason', 'Failed')}: {ready.get('message', '')}")
    return None


def disk_ready(disk: Mapping[str, Any] | None) -> bool:
    return disk is not None and phase(disk) in READY_PHASES


def disk_capacity(disk: Mapping[str, Any]) -> int:
    """Actual size from status.capacity, else the requested spec size."""
    got = size_bytes(_status(disk).get("capacity"))
    if got:
        return got
    return size_bytes(((disk.get("spec") or {}).get("persistentVolumeClaim") or {}).get("size"))


def size_bytes(value: Any) -> int:
    """Bytes of a size DVP wrote (rounded up); 0 when absent, unreadable or negative, as for a disk being made."""
    found = parse_quantity_or_none(value)
    return found.to_int() if found is not None and found.amount > 0 else 0


def disk_attached_vms(disk: Mapping[str, Any] | None) -> list[str]:
    return [a.get("name", "") for a in _status(disk).get("attachedToVirtualMachines") or []]


def disk_storage_class(disk: Mapping[str, Any]) -> str:
    return ((disk.get("spec") or {}).get("persistentVolumeClaim") or {}).get("storageClassName") or ""


def disk_source(disk: Mapping[str, Any]) -> tuple[str, str] | None:
    ref = (((disk.get("spec") or {}).get("dataSource") or {}).get("objectRef")) or {}
    return (ref["kind"], ref["name"]) if ref.get("kind") else None


def vm_alive(vm: Mapping[str, Any] | None) -> bool:
    if vm is None or (vm.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return phase(vm) not in DEAD_VM_PHASES


def vm_block_devices(vm: Mapping[str, Any]) -> int:
    """Devices on a VM now (static and hot-plugged) as DVP reports them, else its static disks."""
    refs = _status(vm).get("blockDeviceRefs")
    return len(refs) if refs is not None else static_disk_count(vm)


# DVP's VMBDA condition for the VM's block device limit: the type's name really ends in "Type". When the limit is
# reached DVP sets it False (reason CapacityReached) and keeps the VMBDA Pending with Attached=False, not Failed.
CAPACITY_CONDITION = "DiskAttachmentCapacityAvailableType"
CAPACITY_REACHED = "CapacityReached"


def capacity_reached(vmbda: Mapping[str, Any]) -> bool:
    cond = condition(vmbda, CAPACITY_CONDITION)
    return cond.get("status") == "False" and cond.get("reason") == CAPACITY_REACHED


def static_disk_count(vm: Mapping[str, Any]) -> int:
    return len((vm.get("spec") or {}).get("blockDeviceRefs") or [])


def snapshot_ready(vds: Mapping[str, Any] | None) -> bool:
    return phase(vds) == "Ready"


def disk_capacity_status(disk: Mapping[str, Any]) -> int:
    """Only what DVP reports as provisioned (a resize is done when this reaches the new size)."""
    return size_bytes(_status(disk).get("capacity"))


def snapshot_size(vds: Mapping[str, Any]) -> int:
    raw = ((vds.get("metadata") or {}).get("annotations") or {}).get(labels.SIZE_ANNOTATION, "0")
    return int(raw) if raw.isdigit() else 0


def describe(obj: Mapping[str, Any] | None) -> str:
    """The last state of a wait that ran out, for its message."""
    return f"phase {phase(obj)!r}"


def vmbda_vm(vmbda: Mapping[str, Any]) -> str:
    return (vmbda.get("spec") or {}).get("virtualMachineName", "")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP object state as the CSI driver answers it: a disk's failure as a CSI error, VMBDA capacity, VM liveness.

The reading of a VirtualDisk's state itself is dvp_common.dvp.disk_state (one truth with dvp_common.dvp.disks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc
from dvp_common.dvp import conditions as D
from dvp_common.dvp import disk_state
from dvp_common.dvp.state import condition, phase, status

from . import labels
from .errors import CsiError

# A VM in these phases runs nothing, so its attachments can be dropped without waiting for the guest.
DEAD_VM_PHASES = frozenset({"Stopped", "Terminating"})


def disk_failure(disk: Mapping[str, Any]) -> CsiError | None:
    """A terminal provisioning failure of a disk as a CSI error, None while it may still become ready."""
    failed = disk_state.failure(disk)
    if failed is None:
        return None
    name = disk["metadata"]["name"]
    reason, message = failed
    if reason == disk_state.QUOTA_EXCEEDED:
        return CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"VirtualDisk {name}: quota exceeded: {message}")
    return CsiError(grpc.StatusCode.INTERNAL, f"VirtualDisk {name} failed: {reason}: {message}")


def resize_refused(disk: Mapping[str, Any], generation: int | None = None) -> CsiError | None:
    """DVP refused to grow the disk (`Resizing=False/NotAvailable`: the project's quota forbade the PVC's growth,
    or the disk is being snapshotted or migrated) as RESOURCE_EXHAUSTED with DVP's message; the external-resizer
    retries later. None while no refusal shows, and for a refusal DVP wrote for an older spec than `generation`
    (the one our grow made: DVP stamps each condition with the generation it judged)."""
    cond = D.get(disk, D.VD_RESIZING)
    if not D.is_reason(cond, D.VD_RESIZING, "NotAvailable", status="False"):
        return None
    observed = (cond or {}).get("observedGeneration")
    if generation is not None and isinstance(observed, int) and observed < generation:
        return None
    return CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"VirtualDisk {disk['metadata']['name']}: {(cond or {}).get('message') or 'resizing refused'}")


def vm_alive(vm: Mapping[str, Any] | None) -> bool:
    if vm is None or (vm.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return phase(vm) not in DEAD_VM_PHASES


def vm_block_devices(vm: Mapping[str, Any]) -> int:
    """Devices on a VM now (static and hot-plugged) as DVP reports them, else its static disks."""
    refs = status(vm).get("blockDeviceRefs")
    return len(refs) if refs is not None else static_disk_count(vm)


# DVP's VMBDA condition for the VM's block device limit: the type's name really ends in "Type". When the limit is
# reached DVP sets it False (reason CapacityReached) and keeps the VMBDA Pending with Attached=False, not Failed.
CAPACITY_CONDITION = D.VMBDA_CAPACITY.value
CAPACITY_REACHED = D.reason_of(D.VMBDA_CAPACITY, "CapacityReached").value


def capacity_reached(vmbda: Mapping[str, Any]) -> bool:
    return D.is_reason(condition(vmbda, CAPACITY_CONDITION), D.VMBDA_CAPACITY, CAPACITY_REACHED, status="False")


def static_disk_count(vm: Mapping[str, Any]) -> int:
    return len((vm.get("spec") or {}).get("blockDeviceRefs") or [])


def snapshot_ready(vds: Mapping[str, Any] | None) -> bool:
    return phase(vds) == "Ready"


def snapshot_size(vds: Mapping[str, Any]) -> int:
    raw = ((vds.get("metadata") or {}).get("annotations") or {}).get(labels.SIZE_ANNOTATION, "0")
    return int(raw) if raw.isdigit() else 0


def describe(obj: Mapping[str, Any] | None) -> str:
    """The last state of a wait that ran out, for its message."""
    return f"phase {phase(obj)!r}"


def vmbda_vm(vmbda: Mapping[str, Any]) -> str:
    return (vmbda.get("spec") or {}).get("virtualMachineName", "")

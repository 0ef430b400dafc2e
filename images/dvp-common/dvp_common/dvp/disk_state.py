# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reading a VirtualDisk's state as DVP writes it: usable, failed for good, sizes, where it is attached.

Pure (no I/O): dvp_common.dvp.disks waits on it and the CSI driver maps it onto CSI answers.
"""

from __future__ import annotations

from typing import Any

from ..quantity import parse_quantity_or_none
from . import conditions as D
from .state import Obj, condition, phase, status

USABLE_PHASES = frozenset({"Ready", "WaitForFirstConsumer"})
QUOTA_EXCEEDED = D.reason_of(D.VD_READY, "QuotaExceeded").value
# Ready=False with one of these reasons: DVP will not make the disk usable without someone changing something
# (the table's terminal and capacity reasons of a VirtualDisk's Ready).
TERMINAL_READY_REASONS = D.reasons_meaning(D.VD_READY, D.Meaning.TERMINAL) | D.reasons_meaning(
    D.VD_READY, D.Meaning.CAPACITY)
FAILED_PHASES = frozenset({"Failed", "PVCLost"})


def usable(disk: Obj | None) -> bool:
    """Ready, or WaitForFirstConsumer (DVP provisions it once a VM uses it)."""
    return disk is not None and phase(disk) in USABLE_PHASES


def failure(disk: Obj) -> tuple[str, str] | None:
    """(reason, message) when the disk can no longer become usable; None while it still may."""
    ready = condition(disk, "Ready") or {}
    if ready.get("status") == "False" and ready.get("reason") in TERMINAL_READY_REASONS:
        return str(ready["reason"]), str(ready.get("message") or "")
    if phase(disk) in FAILED_PHASES:
        return phase(disk), str(ready.get("message") or "")
    return None


def _pvc(disk: Obj) -> Obj:
    return (disk.get("spec") or {}).get("persistentVolumeClaim") or {}


def requested_size(disk: Obj) -> str:
    return str(_pvc(disk).get("size") or "")


def storage_class(disk: Obj) -> str:
    return str(_pvc(disk).get("storageClassName") or "")


def data_source(disk: Obj) -> tuple[str, str] | None:
    """(kind, name) of the object the disk is made from, None for a blank disk."""
    ref = ((disk.get("spec") or {}).get("dataSource") or {}).get("objectRef") or {}
    return (ref["kind"], ref["name"]) if ref.get("kind") else None


def size_bytes(value: Any) -> int:
    """Bytes of a size DVP wrote (rounded up); 0 when absent, unreadable or not positive, as for a disk being made."""
    found = parse_quantity_or_none(value)
    return found.to_int() if found is not None and found.amount > 0 else 0


def reported_bytes(disk: Obj) -> int:
    """Only what DVP reports as provisioned (`status.capacity`): a resize is done when this reaches the new size."""
    return size_bytes(status(disk).get("capacity"))


def capacity_bytes(disk: Obj) -> int:
    """The provisioned size, else the requested one (a disk still being made)."""
    return reported_bytes(disk) or size_bytes(requested_size(disk))


def attached_vms(disk: Obj | None) -> list[str]:
    return [a.get("name", "") for a in status(disk).get("attachedToVirtualMachines") or []]

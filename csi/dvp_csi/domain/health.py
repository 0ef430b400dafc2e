# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Volume health from the VirtualDisk as DVP reports it.

A disk is abnormal when DVP says it cannot be used any more: phase `Failed` (an error while creating it) or
`PVCLost` (its PVC is gone), or a `Ready` condition with reason PVCLost before the phase says so. The message
carries DVP's own reason and message, so what the guest shows is what DVP said. Every other phase (Pending,
Provisioning, Resizing, Migrating ...) is a state DVP works through, not a fault of the volume.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from dvp_common.dvp import conditions as D
from dvp_common.dvp.state import condition, phase

ABNORMAL_PHASES = frozenset({"Failed", "PVCLost"})
LOST_REASON = D.reason_of(D.VD_READY, "PVCLost").value  # DVP's Ready reason once the PVC is missing
# CSI VolumeHealthErrorType names: a lost PVC took the data with it; a failed disk cannot be reached
DATA_LOSS, INACCESSIBLE = "DATA_LOSS", "INACCESSIBLE"


class Health(NamedTuple):
    abnormal: bool
    message: str
    phase: str
    reason: str  # DVP's Ready reason ("" when it gave none)


def disk_health(disk: Mapping[str, Any]) -> Health:
    name = (disk.get("metadata") or {}).get("name", "")
    current = phase(disk) or "Pending"
    ready = condition(disk, "Ready") or {}
    reason = ready.get("reason") or ""
    lost = ready.get("status") == "False" and reason == LOST_REASON
    if current in ABNORMAL_PHASES or lost:
        said = ": ".join(p for p in (reason, ready.get("message")) if p)
        return Health(True, f"VirtualDisk {name} is {current} in DVP" + (f" ({said})" if said else ""),
                      current, reason)
    return Health(False, f"VirtualDisk {name} is {current} in DVP", current, reason)


class Entry(NamedTuple):
    status: str  # a CSI VolumeHealthErrorType name
    reason: str  # CamelCase, for machines
    message: str


def health_entries(disk: Mapping[str, Any]) -> list[Entry]:
    """CSI VolumeHealth entries of a disk: none while it is healthy (ControllerGetVolumeHealth and
    ControllerListVolumeHealth)."""
    health = disk_health(disk)
    if not health.abnormal:
        return []
    if health.phase == "PVCLost" or health.reason == LOST_REASON:
        return [Entry(DATA_LOSS, LOST_REASON, health.message)]
    return [Entry(INACCESSIBLE, health.reason or health.phase, health.message)]

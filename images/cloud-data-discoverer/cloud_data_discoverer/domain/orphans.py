# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Orphaned disks: VirtualDisks carrying our cluster UUID that nothing of ours references.

Referenced means: a guest PersistentVolume of our driver has it as volumeHandle, a DVP VirtualMachine lists
it among its block devices (spec or status), or a VMBDA attaches it. A disk younger than `min_age` is never
reported: CSI creates the disk before the PV exists.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

DRIVER = "csi.dvp.deckhouse.io"


@dataclass(frozen=True, order=True)
class OrphanedDisk:
    name: str
    uid: str
    size: str
    component: str


def _created(obj: dict[str, Any]) -> datetime.datetime | None:
    stamp = (obj.get("metadata") or {}).get("creationTimestamp")
    if not stamp:
        return None
    try:
        return datetime.datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return None


def referenced_names(pvs: Iterable[dict[str, Any]], vms: Iterable[dict[str, Any]],
                     attachments: Iterable[dict[str, Any]]) -> set[str]:
    names: set[str] = set()
    for pv in pvs:
        csi = (pv.get("spec") or {}).get("csi") or {}
        if csi.get("driver") == DRIVER and csi.get("volumeHandle"):
            names.add(csi["volumeHandle"])
    for vm in vms:
        for part in ("spec", "status"):
            for ref in (vm.get(part) or {}).get("blockDeviceRefs") or []:
                if ref.get("kind") == "VirtualDisk" and ref.get("name"):
                    names.add(ref["name"])
    for bda in attachments:
        ref = (bda.get("spec") or {}).get("blockDeviceRef") or {}
        if ref.get("kind") == "VirtualDisk" and ref.get("name"):
            names.add(ref["name"])
    return names


def find_orphans(disks: Iterable[dict[str, Any]], referenced: set[str], cluster_uuid: str, uuid_label: str,
                 component_label: str, now: datetime.datetime, min_age: float) -> list[OrphanedDisk]:
    found = []
    for disk in disks:
        meta = disk.get("metadata") or {}
        if (meta.get("labels") or {}).get(uuid_label) != cluster_uuid or meta.get("name") in referenced:
            continue
        if meta.get("deletionTimestamp"):
            continue  # already going away
        created = _created(disk)
        if created is None or (now - created).total_seconds() < min_age:
            continue
        size = str(((disk.get("spec") or {}).get("persistentVolumeClaim") or {}).get("size") or "")
        found.append(OrphanedDisk(meta["name"], str(meta.get("uid") or ""), size,
                                  str((meta.get("labels") or {}).get(component_label) or "")))
    return sorted(found)

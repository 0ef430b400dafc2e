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

from dvp_common.rfc3339 import parse_time_or_none

from . import shapes
from .shapes import Malformed, Skipped

DRIVER = "csi.dvp.deckhouse.io"


@dataclass(frozen=True, order=True)
class OrphanedDisk:
    name: str
    uid: str
    size: str
    component: str


def _created(meta: dict[str, Any]) -> datetime.datetime | None:
    stamp = meta.get("creationTimestamp")
    return parse_time_or_none(stamp) if isinstance(stamp, str) and len(stamp) <= 40 else None


def _pv_handle(pv: Any) -> str | None:
    shapes.metadata(pv)  # the name matters only to the log line
    csi = shapes.mapping(shapes.mapping(pv.get("spec"), "spec").get("csi"), "spec.csi")
    if csi.get("driver") != DRIVER or csi.get("volumeHandle") is None:
        return None
    if not shapes.is_name(csi["volumeHandle"]):
        raise Malformed("spec.csi.volumeHandle is not a DNS-1123 name")
    return csi["volumeHandle"]


def _disk_ref(ref: Any, field: str) -> str | None:
    ref = shapes.mapping(ref, field)
    if ref.get("kind") != "VirtualDisk":
        return None
    if not shapes.is_name(ref.get("name")):
        raise Malformed(f"{field}.name is not a DNS-1123 name")
    return ref["name"]


def _vm_disks(vm: Any) -> list[str | None]:
    shapes.metadata(vm)
    return [_disk_ref(ref, f"{part}.blockDeviceRefs[{i}]") for part in ("spec", "status")
            for i, ref in enumerate(shapes.items(shapes.mapping(vm.get(part), part).get("blockDeviceRefs"),
                                                 f"{part}.blockDeviceRefs"))]


def _bda_disk(bda: Any) -> str | None:
    shapes.metadata(bda)
    return _disk_ref(shapes.mapping(bda.get("spec"), "spec").get("blockDeviceRef"), "spec.blockDeviceRef")


def referenced_names(pvs: Iterable[Any], vms: Iterable[Any],
                     attachments: Iterable[Any]) -> tuple[set[str], list[Skipped]]:
    handles, skipped = shapes.judge(shapes.PV, "PersistentVolume", pvs, _pv_handle)
    names = {h for h in handles if h}
    vm_refs, bad = shapes.judge(shapes.VM, "VirtualMachine", vms, _vm_disks)
    names.update(n for refs in vm_refs for n in refs if n)
    bda_refs, worse = shapes.judge(shapes.VMBDA, "VirtualMachineBlockDeviceAttachment", attachments, _bda_disk)
    names.update(n for n in bda_refs if n)
    return names, skipped + bad + worse


def _disk(disk: Any, referenced: set[str], cluster_uuid: str, uuid_label: str, component_label: str,
          now: datetime.datetime, min_age: float) -> OrphanedDisk | None:
    name = shapes.name(disk)
    meta = shapes.metadata(disk)
    labels = shapes.string_map(meta.get("labels"), "metadata.labels")
    if labels.get(uuid_label) != cluster_uuid or name in referenced or meta.get("deletionTimestamp"):
        return None  # not ours, in use, or already going away
    uid = meta.get("uid")
    if not isinstance(uid, str) or not shapes.UID.fullmatch(uid):
        raise Malformed("metadata.uid is missing or not a UID")
    created = _created(meta)
    if created is None or (now - created).total_seconds() < min_age:
        return None
    pvc = shapes.mapping(shapes.mapping(disk.get("spec"), "spec").get("persistentVolumeClaim"),
                         "spec.persistentVolumeClaim")
    size = shapes.quantity(pvc.get("size"), "spec.persistentVolumeClaim.size") or ""
    component = labels.get(component_label, "")
    return OrphanedDisk(name, uid, size, component if shapes.is_label_value(component) else "")


def find_orphans(disks: Iterable[Any], referenced: set[str], cluster_uuid: str, uuid_label: str,
                 component_label: str, now: datetime.datetime,
                 min_age: float) -> tuple[list[OrphanedDisk], list[Skipped]]:
    found, skipped = shapes.judge(shapes.DISK, "VirtualDisk", disks, lambda d: _disk(
        d, referenced, cluster_uuid, uuid_label, component_label, now, min_age))
    return sorted(d for d in found if d), skipped

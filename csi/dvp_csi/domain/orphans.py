# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Orphan attachments: which of this cluster's VMBDAs no guest VolumeAttachment wants any more.

The attacher deletes a VMBDA when Kubernetes detaches a volume; one whose VolumeAttachment went away without
that (a controller down at the time, a VolumeAttachment deleted by hand, a crash between two writes) would keep
the disk hot-plugged into a VM for ever. The rule, made to never take a disk from under a workload:
- only VMBDAs of this cluster's CSI driver (the ownership rule: cluster-UUID and component labels);
- a VMBDA is wanted while any VolumeAttachment names its disk, on any node, being deleted or not (a
  VolumeAttachment names the PersistentVolume; ours are named as their volume, and its CSI volumeHandle counts too);
- orphaned only after two observations at least `grace` seconds apart, both orphaned, of the same object (uid);
- one already being deleted is left to DVP.
Time comes in as an argument (seconds on any monotonic clock).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from dvp_common.dvp.labels import CSI
from dvp_common.dvp.ownership import is_ours

from .disks import vmbda_vm


class Verdict(NamedTuple):
    seen: dict[str, float]  # uid -> when first seen orphaned; the memory the next pass starts from
    collect: list[Mapping[str, Any]]  # VMBDAs orphaned for the grace period: delete them (by uid)
    pending: list[Mapping[str, Any]]  # orphaned, still within the grace period


def wanted_volumes(volume_attachments: Iterable[Mapping[str, Any]],
                   persistent_volumes: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """Volume ids some VolumeAttachment still names: its PersistentVolume's name and CSI volumeHandle, or the
    volumeHandle of an inline volume."""
    handles = {}
    for pv in persistent_volumes:
        name = (pv.get("metadata") or {}).get("name")
        handle = ((pv.get("spec") or {}).get("csi") or {}).get("volumeHandle")
        if name and handle:
            handles[name] = handle
    wanted = set()
    for va in volume_attachments:
        source = (va.get("spec") or {}).get("source") or {}
        pv = source.get("persistentVolumeName")
        if pv:
            wanted.update({pv, handles.get(pv, pv)})
        inline = ((source.get("inlineVolumeSpec") or {}).get("csi") or {}).get("volumeHandle")
        if inline:
            wanted.add(inline)
    return frozenset(wanted)


def disk_of(vmbda: Mapping[str, Any]) -> str:
    return ((vmbda.get("spec") or {}).get("blockDeviceRef") or {}).get("name", "")


def judge(vmbdas: Iterable[Mapping[str, Any]], wanted: frozenset[str], seen: Mapping[str, float], now: float,
          grace: float, cluster_uuid: str) -> Verdict:
    keep: dict[str, float] = {}
    collect, pending = [], []
    for att in vmbdas:
        md = att.get("metadata") or {}
        uid = md.get("uid")
        if not uid or not is_ours(dict(att), cluster_uuid, CSI) or md.get("deletionTimestamp"):
            continue
        if disk_of(att) in wanted or not disk_of(att) or not vmbda_vm(att):
            continue  # wanted (or not a disk attachment we can judge): forgotten, a later orphan starts anew
        first = seen.get(uid, now)
        keep[uid] = first  # kept until it is gone: a delete that failed is retried on the next pass
        (collect if uid in seen and now - first >= grace else pending).append(att)
    return Verdict(keep, collect, pending)

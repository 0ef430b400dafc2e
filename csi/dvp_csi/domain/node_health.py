# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Volume health as the node sees it (NodeGetVolumeHealth): is the disk still on the node, still mounted?

A hot-unplugged disk leaves its mounts behind with the device gone, and a mount lost under the plugin's feet
leaves an empty directory: both are INACCESSIBLE to the pod. What DVP says of the disk is the controller's part
(health.py): the node plugin holds no DVP credentials.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .health import INACCESSIBLE, Entry

PATH_MISSING, NOT_MOUNTED, DEVICE_MISSING = "PathMissing", "NotMounted", "DeviceMissing"


class PathState(NamedTuple):
    """What the OS shows at one path kubelet gave."""

    role: str  # "publish" or "staging"
    path: str
    exists: bool
    block: bool  # a block device file (a raw block volume's publish path)
    mounted: bool
    device_present: bool | None  # the kernel still has the disk behind it; None: not a disk-backed path


def path_entries(volume_id: str, states: Iterable[PathState]) -> list[Entry]:
    """One entry per path that is not what a healthy published volume looks like; none when all are."""
    out: list[Entry] = []
    for s in states:
        where = f"volume {volume_id}: {s.role} path {s.path}"
        if not s.exists:
            out.append(Entry(INACCESSIBLE, PATH_MISSING, f"{where} does not exist"))
        elif s.device_present is False:
            out.append(Entry(INACCESSIBLE, DEVICE_MISSING, f"{where}: its disk is gone from the node"))
        elif not (s.block or s.mounted):
            out.append(Entry(INACCESSIBLE, NOT_MOUNTED, f"{where} is not mounted"))
    return out


def paths_to_check(publish: PathState | None, staging: PathState | None) -> list[PathState]:
    """A raw block volume is published straight from the device: its staging directory is never a mount."""
    if publish is not None and publish.block:
        return [publish]
    return [s for s in (publish, staging) if s is not None]

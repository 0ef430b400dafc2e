# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Our VirtualDisks and VMBDAs counted by DVP phase, for `dvp_csi_volumes{phase}` and `dvp_csi_attachments{phase}`
(pure). The label sets are bounded by design: DVP's phases of each kind, `Other` for any phase this version does
not know, so that no free text becomes a label value."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dvp_common.dvp.state import phase

DISK_PHASES = ("Pending", "Provisioning", "WaitForUserUpload", "WaitForFirstConsumer", "Ready", "Resizing",
               "Migrating", "Exporting", "Failed", "PVCLost", "Terminating")
ATTACHMENT_PHASES = ("Pending", "InProgress", "Attached", "Failed", "Terminating")
OTHER = "Other"


def by_phase(objects: Iterable[Mapping[str, Any]], known: tuple[str, ...]) -> dict[str, int]:
    """Every known phase (zeros included, so each series exists from the start) plus `Other`; no phase yet is
    `Pending`, a deleted object still listed is `Terminating`."""
    counts = dict.fromkeys((*known, OTHER), 0)
    for obj in objects:
        p = "Terminating" if (obj.get("metadata") or {}).get("deletionTimestamp") else (phase(obj) or "Pending")
        counts[p if p in known else OTHER] += 1
    return counts

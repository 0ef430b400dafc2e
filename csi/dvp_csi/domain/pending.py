# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Attachments still pending: this cluster's VMBDAs DVP has not attached yet, with their age (for the metrics and
the alert on attachments stuck past a limit). One being deleted is a detach, not a pending attach."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from dvp_common.rfc3339 import parse_time_or_none

from .disks import phase, vmbda_vm

ATTACHED = "Attached"


class Pending(NamedTuple):
    name: str
    volume: str
    vm: str
    phase: str
    seconds: float  # since the VMBDA was made


def pending_attachments(vmbdas: Iterable[Mapping[str, Any]], now: datetime.datetime) -> list[Pending]:
    out = []
    for att in vmbdas:
        md = att.get("metadata") or {}
        if md.get("deletionTimestamp") or phase(att) == ATTACHED:
            continue
        made = parse_time_or_none(md.get("creationTimestamp"))
        age = max(0.0, (now - made).total_seconds()) if made is not None else 0.0
        volume = ((att.get("spec") or {}).get("blockDeviceRef") or {}).get("name", "")
        out.append(Pending(md.get("name", ""), volume, vmbda_vm(att), phase(att) or "Pending", age))
    return sorted(out)

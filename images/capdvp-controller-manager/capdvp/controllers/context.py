# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What every reconcile gets: the two APIs, the settings that matter to reconciling, a clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from dvp_common import rfc3339
from dvp_common.rfc3339 import format_time
from dvp_common.runtime.controller import DONE, RETRY, Result

from capdvp.ports import Api

__all__ = ["DONE", "RETRY", "Context", "ReconcileConfig", "Result", "format_time", "parse_time", "utcnow"]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass(frozen=True)
class ReconcileConfig:
    dvp_namespace: str
    cluster_uuid: str
    additional_vm_labels: Mapping[str, str] = field(default_factory=dict)
    vm_delete_timeout: float = 600.0  # seconds after the DeckhouseMachine's deletionTimestamp
    disk_delete_timeout: float = 300.0  # on top of the VM's
    cluster_cleanup_timeout: float = 900.0
    waiting_requeue: float = 30.0  # re-check for things no watch tells us about (a class or image appearing)
    control_plane_host: str = ""
    control_plane_port: int = 6443


@dataclass
class Context:
    guest: Api
    dvp: Api
    config: ReconcileConfig
    now: Callable[[], dt.datetime] = utcnow


def parse_time(value: str | None) -> dt.datetime | None:
    """An absent timestamp is None; a malformed one raises (rfc3339.TimeError)."""
    return rfc3339.parse_time(value) if value else None

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What every reconcile gets: the guest API, the DVP project (typed kinds from dvp_common.dvp), the settings that
matter to reconciling, a clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from dvp_common import rfc3339
from dvp_common.dvp import DVPConnection, Project
from dvp_common.dvp import labels as L
from dvp_common.dvp.images import SOURCES
from dvp_common.kube import KubeClient
from dvp_common.rfc3339 import format_time
from dvp_common.runtime.controller import DONE, RETRY, Result

from capdvp.settings import ReconcileConfig  # settings own it: every field is a flag

__all__ = ["DONE", "RETRY", "Context", "ReconcileConfig", "Result", "format_time", "parse_time", "project", "utcnow"]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass
class Context:
    guest: KubeClient  # or a CachedClient over one
    dvp: Project
    config: ReconcileConfig
    now: Callable[[], dt.datetime] = utcnow
    on_adopt: Callable[[str], None] | None = None  # called with the kind of each object adopted (a metric)


def project(conn: DVPConnection) -> Project:
    """The DVP project as capdvp works with it: only objects capdvp made count as ours (a master VM of the
    OpenTofu layouts is never touched), and a boot disk may also come from a VirtualDiskSnapshot."""
    return Project(conn, L.CAPDVP, owners=frozenset({L.CAPDVP}), image_kinds=tuple(SOURCES))


def parse_time(value: str | None) -> dt.datetime | None:
    """An absent timestamp is None; a malformed one raises (rfc3339.TimeError)."""
    return rfc3339.parse_time(value) if value else None

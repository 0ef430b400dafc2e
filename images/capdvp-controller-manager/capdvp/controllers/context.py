# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What every reconcile gets: the two APIs, the settings that matter to reconciling, a clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from dvp_common.runtime.controller import DONE, RETRY, Result

from capdvp.ports import Api
from capdvp.settings import ReconcileConfig  # settings own it: every field is a flag

__all__ = ["DONE", "RETRY", "Context", "ReconcileConfig", "Result", "parse_time", "utcnow"]


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass
class Context:
    guest: Api
    dvp: Api
    config: ReconcileConfig
    now: Callable[[], dt.datetime] = utcnow


def parse_time(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def format_time(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

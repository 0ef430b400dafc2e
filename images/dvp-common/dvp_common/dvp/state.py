# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reading any DVP object's state as DVP writes it (`status.phase`, `status.conditions`). Pure: no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Obj = Mapping[str, Any]


def status(obj: Obj | None) -> Obj:
    return (obj or {}).get("status") or {}


def phase(obj: Obj | None) -> str:
    return str(status(obj).get("phase") or "")


def condition(obj: Obj | None, kind: str) -> dict[str, Any] | None:
    """The condition of that type, None when DVP has not written it."""
    for cond in status(obj).get("conditions") or []:
        if cond.get("type") == kind:
            return cond
    return None

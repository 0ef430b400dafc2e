# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Plain result types of the client. Objects themselves stay dicts, exactly as the API sends them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ADDED, MODIFIED, DELETED, BOOKMARK, ERROR = "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"


@dataclass(frozen=True)
class ListResult:
    items: list[dict[str, Any]]
    resource_version: str
    continue_: str | None = None


@dataclass(frozen=True)
class WatchEvent:
    type: str  # ADDED, MODIFIED, DELETED, BOOKMARK
    object: dict[str, Any] = field(repr=False)

    @property
    def resource_version(self) -> str:
        return str((self.object.get("metadata") or {}).get("resourceVersion") or "")

    @property
    def name(self) -> str:
        return str((self.object.get("metadata") or {}).get("name") or "")


def meta(obj: dict[str, Any] | None) -> dict[str, Any]:
    return (obj or {}).get("metadata") or {}


def selector(value: str | dict[str, str] | None) -> str | None:
    """Label/field selectors as a string; a dict means equality on every pair."""
    if value is None or isinstance(value, str):
        return value
    return ",".join(f"{k}={v}" for k, v in sorted(value.items()))


def summarize(obj: dict[str, Any] | None) -> str:
    """A short, secret-free picture of an object's state for timeout messages and logs."""
    if obj is None:
        return "absent"
    status = obj.get("status") or {}
    parts = [f"resourceVersion={meta(obj).get('resourceVersion', '')}"]
    if meta(obj).get("deletionTimestamp"):
        parts.append("deleting")
    if isinstance(status, dict):
        if status.get("phase"):
            parts.append(f"phase={status['phase']}")
        for cond in (status.get("conditions") or [])[:4]:
            if isinstance(cond, dict) and cond.get("type"):
                parts.append(f"{cond['type']}={cond.get('status', '')}/{cond.get('reason', '')}")
    return ", ".join(parts)

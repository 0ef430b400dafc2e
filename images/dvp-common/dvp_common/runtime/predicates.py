# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Event filters for informer handlers."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

# Metadata every write changes: not a change of what the object asks for.
_BOOKKEEPING = ("resourceVersion", "managedFields")


def status_only(old: dict[str, Any], new: dict[str, Any], watched: Collection[str] = ()) -> bool:
    """The update changed the status and nothing else: for a controller that owns that status, the echo of its
    own write. With `watched` (top-level status fields the controller reads), the update changed only status
    fields outside them: conditions or progress the controller never looks at. A resync (the same
    resourceVersion replayed) is never status-only: it is meant to reconcile."""
    if (old.get("metadata") or {}).get("resourceVersion") == (new.get("metadata") or {}).get("resourceVersion"):
        return False
    if _without_status(old) != _without_status(new):
        return False
    before, after = old.get("status") or {}, new.get("status") or {}
    return all(before.get(field) == after.get(field) for field in watched)


def _without_status(obj: dict[str, Any]) -> dict[str, Any]:
    md = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _BOOKKEEPING}
    return {**{k: v for k, v in obj.items() if k != "status"}, "metadata": md}

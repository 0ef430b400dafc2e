# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Event filters for informer handlers."""

from __future__ import annotations

from typing import Any

# Metadata every write changes: not a change of what the object asks for.
_BOOKKEEPING = ("resourceVersion", "managedFields")


def status_only(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """The update changed the status and nothing else: for a controller that owns that status, the echo of its
    own write. A resync (the same resourceVersion replayed) is not status-only: it is meant to reconcile."""
    if (old.get("metadata") or {}).get("resourceVersion") == (new.get("metadata") or {}).get("resourceVersion"):
        return False
    return _without_status(old) == _without_status(new)


def _without_status(obj: dict[str, Any]) -> dict[str, Any]:
    md = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _BOOKKEEPING}
    return {**{k: v for k, v in obj.items() if k != "status"}, "metadata": md}

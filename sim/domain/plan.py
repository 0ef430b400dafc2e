# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A Plan: what one reconcile wants written. The controller applies it; domain functions only decide."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]


@dataclass
class Write:
    kind: str
    obj: Obj  # the object as last seen (its resourceVersion guards the write)
    status: Obj | None = None  # new status (PUT .../status)
    patch: Obj | None = None  # merge patch of the object itself (metadata)


@dataclass
class Plan:
    status: Obj | None = None  # new status for the reconciled object
    patch: Obj | None = None  # merge patch of the reconciled object (finalizers, annotations)
    first: list[Write] = field(default_factory=list)  # writes to other objects, applied before ours
    creates: list[tuple[str, Obj]] = field(default_factory=list)  # (kind, body); AlreadyExists is fine
    deletes: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, namespace, name)
    requeue_after: float | None = None
    verify_missing: tuple[str, str, str] | None = None  # (kind, ns, name): deletes only if a live GET misses it

    def wake(self, seconds: float | None) -> None:
        """Ask to be reconciled again in `seconds` (the earliest request wins; None = no timer)."""
        if seconds is None:
            return
        seconds = max(seconds, 0.001)
        self.requeue_after = seconds if self.requeue_after is None else min(self.requeue_after, seconds)


def new_status(obj: Obj) -> Obj:
    return copy.deepcopy(obj.get("status") or {})


def changed(obj: Obj, status: Obj) -> Obj | None:
    """`status` if it differs from the object's, else None (a steady state writes nothing)."""
    return None if (obj.get("status") or {}) == status else status


def wait_phase(plan: Plan, world, obj: Obj, kind: str, phase: str, settings) -> bool:
    """True once the object spent its configured latency in `phase`; otherwise schedules a wake-up."""
    delay = settings.delay(kind, phase)
    if delay is None:  # a phase configured never to finish
        return False
    left = delay - world.since(obj, phase)
    if left <= 0:
        return True
    plan.wake(left)
    return False

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Classify, then respond: a rule lists problems of the new object; problems the old object already had are
only warned about (pre-existing state is not the requester's doing), new ones deny the request."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .review import Request


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    message: str = ""
    warnings: tuple[str, ...] = ()
    patch: tuple[dict[str, Any], ...] = field(default=())  # JSON patch ops (mutating only)
    code: int = 200

    @classmethod
    def allow(cls, *warnings: str, patch: Sequence[dict[str, Any]] = ()) -> Verdict:
        return cls(True, warnings=tuple(warnings), patch=tuple(patch))

    @classmethod
    def deny(cls, message: str, *warnings: str, code: int = 403) -> Verdict:
        return cls(False, message, tuple(warnings), code=code)


def classify(req: Request, new_problems: Iterable[str], old_problems: Iterable[str] = ()) -> Verdict:
    """Deny for problems the change introduces; warn about those the old object already had."""
    old = set(old_problems) if req.operation == "UPDATE" else set()
    fresh = [p for p in new_problems if p not in old]
    inherited = [f"{p} (already so before this change)" for p in new_problems if p in old]
    if fresh:
        return Verdict.deny("; ".join(fresh), *inherited)
    return Verdict.allow(*inherited)

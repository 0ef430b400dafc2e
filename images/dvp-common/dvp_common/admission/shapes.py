# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Type checks of the fields a rule reads, run before the rule: a wrong type is a denial naming the field, never
a crash inside a rule. The API server only sends objects of the served schema; anything else comes from a direct
client, so the check is strict. Each webhook names its fields per kind; the mechanics are here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .review import Request

STR, MAP, LIST, STR_MAP, STR_LIST, ANY = "a string", "an object", "a list", "a map of strings", \
    "a list of strings", "any"
METADATA = {"metadata": MAP, "metadata.name": STR, "metadata.namespace": STR, "metadata.labels": STR_MAP,
            "metadata.annotations": STR_MAP}


def _fits(value: Any, want: str) -> bool:
    if want == STR:
        return isinstance(value, str)
    if want == MAP:
        return isinstance(value, dict)
    if want == LIST:
        return isinstance(value, list)
    if want == STR_MAP:
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if want == STR_LIST:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return True


def problem(obj: dict[str, Any], fields: Mapping[str, str]) -> str | None:
    """The first field of `obj` (metadata or one of `fields`) whose type does not fit; None when all fit."""
    for path, want in {**METADATA, **fields}.items():
        node: Any = obj
        for key in path.split("."):
            if not isinstance(node, dict):
                node = None
                break
            node = node.get(key)
        if node is not None and not _fits(node, want):
            return f"{path} must be {want}"
    return None


def checker(fields_by_kind: Mapping[str, Mapping[str, str]]) -> Callable[[Request], str | None]:
    """A Route check: a denial message naming the first badly typed field of the request's objects, or None."""

    def check(req: Request) -> str | None:
        for what, obj in (("object", req.obj), ("oldObject", req.old)):
            found = problem(obj, fields_by_kind.get(req.kind, {})) if obj is not None else None
            if found:
                return f"{req.ref()}: {what}.{found}"
        return None

    return check

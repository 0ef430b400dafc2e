# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Cloud conditions (upstream's CloudCondition {name, message, ok}) written to kube-system ConfigMap
d8-cloud-provider-conditions, key `conditions`."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import shapes
from .shapes import Malformed, Skipped

DVP_API_REACHABLE = "DVPAPIReachable"
DISCOVERY_DATA_VALID = "DiscoveryDataValid"  # the installer's cloud-provider-discovery-data.json parses
RESOURCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")  # a quota's resource name: `requests.storage`, `count/x`
QUOTA_PREFIX = "DVPQuota"  # + the quota's resource, e.g. DVPQuota:requests.storage


@dataclass(frozen=True, order=True)
class Condition:
    name: str
    ok: bool
    message: str  # for the ConfigMap: may carry (redacted) detail
    # For the metric label: from a fixed set of texts, so series stay few and carry no upstream text.
    summary: str = field(default="", compare=False)

    @property
    def label(self) -> str:
        return self.summary or self.message


def reachability(error: str | None, code: str = "") -> Condition:
    """`error`: the redacted text of the failure; `code`: its bounded code (an HTTP status, a reason)."""
    if error is None:
        return Condition(DVP_API_REACHABLE, True, "the DVP API answers")
    return Condition(DVP_API_REACHABLE, False, f"the DVP API is unreachable: {error}",
                     f"the DVP API is unreachable: {code or 'error'}")


def parse_quantity(text: Any) -> float | None:
    """Kubernetes quantities as numbers (enough precision for a ratio)."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        return None
    s = str(text).strip()
    if len(s) > 64 or not shapes.QUANTITY.fullmatch(s):
        return None
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
             "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
             "E": 1e18}
    for suffix in sorted(units, key=len, reverse=True):
        if s.endswith(suffix):
            return _finite(s[: -len(suffix)], units[suffix])
    return _finite(s, 1)


def _finite(number: str, unit: float) -> float | None:
    try:
        value = float(number) * unit
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) and value >= 0 else None  # "nan", "inf", "1e999" are no amount


def _quota(quota: Any, threshold: float) -> list[Condition]:
    qname = shapes.name(quota)
    status = shapes.mapping(quota.get("status"), "status")
    hard = shapes.string_map(status.get("hard"), "status.hard")
    used = shapes.string_map(status.get("used"), "status.used")
    out = []
    for resource in sorted(hard):
        if len(resource) > 253 or not RESOURCE.fullmatch(resource):
            raise Malformed("status.hard names something that is not a resource")
        limit, taken = parse_quantity(hard[resource]), parse_quantity(used.get(resource, "0"))
        if limit is None or taken is None:
            continue
        ratio = 1.0 if limit <= 0 else taken / limit
        near = ratio >= threshold
        message = (f'ResourceQuota "{qname}": {resource} used {used.get(resource, "0")} of {hard[resource]} '
                   f"({ratio:.0%}{', near its limit' if near else ''})")
        out.append(Condition(f"{QUOTA_PREFIX}:{qname}:{resource}", not near, message))
    return out


def quota_conditions(quotas: Iterable[Any], threshold: float) -> tuple[list[Condition], list[Skipped]]:
    """One condition per resource with a hard limit in any ResourceQuota of the project namespace."""
    found, skipped = shapes.judge(shapes.QUOTA, "ResourceQuota", quotas, lambda q: _quota(q, threshold))
    return [c for cs in found for c in cs], skipped


def render(conditions: Iterable[Condition]) -> str:
    return json.dumps([{"name": c.name, "ok": c.ok, "message": c.message} for c in sorted(conditions)],
                      separators=(",", ":"))


def parse(text: str | None) -> list[dict[str, Any]]:
    try:
        data = json.loads(text or "[]")
    except (ValueError, RecursionError):  # nesting deeper than the parser's stack is no list either
        return []
    return data if isinstance(data, list) else []

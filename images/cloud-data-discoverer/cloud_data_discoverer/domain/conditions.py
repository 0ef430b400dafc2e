# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Cloud conditions (upstream's CloudCondition {name, message, ok}) written to kube-system ConfigMap
d8-cloud-provider-conditions, key `conditions`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dvp_common.quantity import parse_quantity_or_none

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


def _amount(text: Any) -> Fraction | None:
    """A quota's amount, exact; None for what is no amount (malformed, negative)."""
    found = parse_quantity_or_none(text)
    return found.amount if found is not None and found.amount >= 0 else None


def _quota(quota: Any, threshold: float) -> list[Condition]:
    qname = shapes.name(quota)
    status = shapes.mapping(quota.get("status"), "status")
    hard = shapes.string_map(status.get("hard"), "status.hard")
    used = shapes.string_map(status.get("used"), "status.used")
    out = []
    for resource in sorted(hard):
        if len(resource) > 253 or not RESOURCE.fullmatch(resource):
            raise Malformed("status.hard names something that is not a resource")
        limit, taken = _amount(hard[resource]), _amount(used.get(resource, "0"))
        if limit is None or taken is None:
            continue
        ratio = 1.0 if limit <= 0 else float(min(taken / limit, 100))  # exact until shown; 1e999 of 1 is "10000%"
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

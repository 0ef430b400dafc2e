# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Cloud conditions (upstream's CloudCondition {name, message, ok}) written to kube-system ConfigMap
d8-cloud-provider-conditions, key `conditions`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

DVP_API_REACHABLE = "DVPAPIReachable"
DISCOVERY_DATA_VALID = "DiscoveryDataValid"  # the installer's cloud-provider-discovery-data.json parses
QUOTA_PREFIX = "DVPQuota"  # + the quota's resource, e.g. DVPQuota:requests.storage


@dataclass(frozen=True, order=True)
class Condition:
    name: str
    ok: bool
    message: str


def reachability(error: str | None) -> Condition:
    if error is None:
        return Condition(DVP_API_REACHABLE, True, "the DVP API answers")
    return Condition(DVP_API_REACHABLE, False, f"the DVP API is unreachable: {error}")


def parse_quantity(text: Any) -> float | None:
    """Kubernetes quantities as numbers (enough precision for a ratio)."""
    s = str(text).strip()
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
             "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
             "E": 1e18}
    for suffix in sorted(units, key=len, reverse=True):
        if s.endswith(suffix):
            try:
                return float(s[: -len(suffix)]) * units[suffix]
            except ValueError:
                return None
    try:
        return float(s)
    except ValueError:
        return None


def quota_conditions(quotas: Iterable[dict[str, Any]], threshold: float) -> list[Condition]:
    """One condition per resource with a hard limit in any ResourceQuota of the project namespace."""
    out = []
    for quota in quotas:
        qname = (quota.get("metadata") or {}).get("name") or ""
        status = quota.get("status") or {}
        hard, used = status.get("hard") or {}, status.get("used") or {}
        for resource in sorted(hard):
            limit, taken = parse_quantity(hard[resource]), parse_quantity(used.get(resource, "0"))
            if limit is None or taken is None:
                continue
            ratio = 1.0 if limit <= 0 else taken / limit
            near = ratio >= threshold
            message = (f'ResourceQuota "{qname}": {resource} used {used.get(resource, "0")} of {hard[resource]} '
                       f"({ratio:.0%}{', near its limit' if near else ''})")
            out.append(Condition(f"{QUOTA_PREFIX}:{qname}:{resource}", not near, message))
    return out


def render(conditions: Iterable[Condition]) -> str:
    return json.dumps([asdict(c) for c in sorted(conditions)], separators=(",", ":"))


def parse(text: str | None) -> list[dict[str, Any]]:
    try:
        data = json.loads(text or "[]")
    except ValueError:
        return []
    return data if isinstance(data, list) else []

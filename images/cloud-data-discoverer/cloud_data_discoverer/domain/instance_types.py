# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The instance-types catalog: what a DVPInstanceClass may ask of each VirtualMachineClass.

One entry per sizing policy (cores range, memory range, allowed core fractions); a class without sizing
policies accepts any size and gives one unbounded entry. Memory stays in the API's quantity text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, order=True)
class InstanceType:
    virtual_machine_class: str
    policy: int
    cores_min: int
    cores_max: int  # 0: unbounded
    memory_min: str
    memory_max: str
    core_fractions: tuple[str, ...]
    dedicated_cores: bool


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def catalog(classes: Iterable[dict[str, Any]]) -> list[InstanceType]:
    out = []
    for vmc in classes:
        name = (vmc.get("metadata") or {}).get("name") or ""
        policies = (vmc.get("spec") or {}).get("sizingPolicies") or [{}]
        for i, policy in enumerate(policies):
            cores = policy.get("cores") or {}
            memory = policy.get("memory") or {}
            fractions = tuple(str(f) for f in policy.get("coreFractions") or ())
            dedicated = any(bool(v) for v in (policy.get("dedicatedCores") or ()))
            out.append(InstanceType(name, i, _int(cores.get("min")), _int(cores.get("max")),
                                    str(memory.get("min") or ""), str(memory.get("max") or ""), fractions,
                                    dedicated))
    return sorted(out)

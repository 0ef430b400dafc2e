# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The instance-types catalog: what a DVPInstanceClass may ask of each VirtualMachineClass.

One entry per sizing policy (cores range and step, memory range, per-core range and step, allowed core
fractions); a class without sizing policies accepts any size and gives one unbounded entry. Memory stays in the
API's quantity text. `domain.catalog` turns the entries into the fixed sizes node-manager reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from . import shapes
from .shapes import Malformed, Skipped


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
    cores_step: int = 0  # 0: every count in the range
    memory_step: str = ""
    memory_per_core_min: str = ""
    memory_per_core_max: str = ""


MAX_POLICIES = 16  # the CRD's maxItems
FRACTION = re.compile(r"(100|[1-9][0-9]?)%?")


def _fractions(value: Any, field: str) -> tuple[str, ...]:
    out = []
    for f in shapes.items(value, field):
        if isinstance(f, bool) or not isinstance(f, int | str) or not FRACTION.fullmatch(str(f)):
            raise Malformed(f"{field} holds something that is not a core fraction (1-100 or 1%-100%)")
        out.append(str(f))
    return tuple(out)


def _policy(name: str, i: int, policy: Any) -> InstanceType:
    field = f"spec.sizingPolicies[{i}]"
    policy = shapes.mapping(policy, field)
    cores = shapes.mapping(policy.get("cores"), f"{field}.cores")
    memory = shapes.mapping(policy.get("memory"), f"{field}.memory")
    per_core = shapes.mapping(memory.get("perCore"), f"{field}.memory.perCore")
    dedicated = shapes.items(policy.get("dedicatedCores"), f"{field}.dedicatedCores")
    if not all(isinstance(v, bool) for v in dedicated):
        raise Malformed(f"{field}.dedicatedCores is not a list of booleans")
    return InstanceType(name, i, shapes.integer(cores.get("min"), f"{field}.cores.min") or 0,
                        shapes.integer(cores.get("max"), f"{field}.cores.max") or 0,
                        shapes.quantity(memory.get("min"), f"{field}.memory.min") or "",
                        shapes.quantity(memory.get("max"), f"{field}.memory.max") or "",
                        _fractions(policy.get("coreFractions"), f"{field}.coreFractions"), any(dedicated),
                        shapes.integer(cores.get("step"), f"{field}.cores.step") or 0,
                        shapes.quantity(memory.get("step"), f"{field}.memory.step") or "",
                        shapes.quantity(per_core.get("min"), f"{field}.memory.perCore.min") or "",
                        shapes.quantity(per_core.get("max"), f"{field}.memory.perCore.max") or "")


def entries(vmc: Any) -> list[InstanceType]:
    """The entries of one VirtualMachineClass; Malformed names the field that keeps the class out."""
    name = shapes.name(vmc)
    spec = shapes.mapping(vmc.get("spec"), "spec")
    policies = shapes.items(spec.get("sizingPolicies"), "spec.sizingPolicies") or [{}]
    if len(policies) > MAX_POLICIES:
        raise Malformed(f"spec.sizingPolicies has more than {MAX_POLICIES} entries")
    return [_policy(name, i, policy) for i, policy in enumerate(policies)]


def catalog(classes: Iterable[Any]) -> tuple[list[InstanceType], list[Skipped]]:
    found, skipped = shapes.judge(shapes.VM_CLASS, "VirtualMachineClass", classes, entries)
    return sorted(t for ts in found for t in ts), skipped

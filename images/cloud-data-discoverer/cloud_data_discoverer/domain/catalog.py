# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The InstanceTypesCatalog node-manager and the cluster autoscaler read: fixed sizes from the sizing policies.

A catalog entry is one size; a sizing policy is a range. The rule: each policy gives one entry, the largest VM
it admits, because that is the one bound an entry can state truly: a pod that does not fit the entries of a class
never fits a node of it, while any smaller size is just one choice among many.
- cores: the top of the policy's grid (`cores.min + k * cores.step <= cores.max`) that DVP's CPU topology allows
  (any count up to 16, even up to 32, a multiple of 4 up to 64, of 8 above);
- memory: the largest size at those cores within `memory.min..max` and `perCore.min..max` (times the cores), on
  the `memory.step` grid as DVP checks it (from the minimum in steps, the maximum itself always allowed);
- name `<class>-<cores.min>-<cores.max>c`: DVP picks a policy by its core range (the first that holds the
  cores), so the name survives reordered policies and changed memory bounds; an entry whose cores an earlier
  policy holds would be judged by that one and is left out;
- rootDisk `0`: a class says nothing about disks (node-manager's own value for a class without one).
A policy without an upper memory bound, or a class without policies, admits any size: it has no largest one and
gives no entry (`LeftOut` says why). The entries are sorted by name, as upstream's reconciler sorts them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dvp_common.quantity import QuantityError, format_bytes, parse_quantity, quantity_bytes

from .instance_types import InstanceType

NAME = "for-cluster-autoscaler"
API_VERSION = "deckhouse.io/v1alpha1"
KIND = "InstanceTypesCatalog"
ROOT_DISK = "0"
TOPOLOGY = ((16, 1), (32, 2), (64, 4))  # (up to this many cores, a multiple of); above: of 8
TOPOLOGY_ABOVE = 8
MAX_CORES = 1024  # the VirtualMachineClass CRD's bound: it also bounds the search below


@dataclass(frozen=True, order=True)
class Entry:
    name: str
    cpu: int
    memory: int  # bytes

    def render(self) -> dict[str, str]:
        return {"name": self.name, "cpu": str(self.cpu), "memory": format_bytes(self.memory), "rootDisk": ROOT_DISK}


@dataclass(frozen=True)
class LeftOut:
    ref: str  # 'VirtualMachineClass "generic" policy 0'
    reason: str


def _bytes(text: str) -> int:
    return max(quantity_bytes(text), 0) if text else 0


def topology_allows(cores: int) -> bool:
    for limit, multiple in TOPOLOGY:
        if cores <= limit:
            return cores % multiple == 0
    return cores % TOPOLOGY_ABOVE == 0


def largest_cores(t: InstanceType) -> int | None:
    step = t.cores_step or 1
    if t.cores_max < max(t.cores_min, 1):
        return None
    cores = t.cores_min + (t.cores_max - t.cores_min) // step * step
    while cores >= max(t.cores_min, 1):
        if topology_allows(cores):
            return cores
        cores -= step
    return None


def _on_grid(value: int, low: int, high: int, step: int) -> bool:
    return low <= value <= high and (not step or value == high or (value - low) % step == 0)


def admits(t: InstanceType, cores: int, memory: int) -> bool:
    """DVP's memory checks of a policy: the range (when it has a maximum), the per-core range (when it has one)."""
    step = _bytes(t.memory_step)
    high, per_core_high = _bytes(t.memory_max), _bytes(t.memory_per_core_max)
    if memory <= 0 or (high and not _on_grid(memory, _bytes(t.memory_min), high, step)):
        return False
    return not per_core_high or _on_grid(memory // cores, _bytes(t.memory_per_core_min), per_core_high, step)


def _snapped(value: int, low: int, step: int) -> int:
    return low + (value - low) // step * step if step and value > low else value


def largest_memory(t: InstanceType, cores: int) -> int | None:
    """The largest admitted size among the caps and their snaps onto each step grid."""
    step = _bytes(t.memory_step)
    low, per_core_low = _bytes(t.memory_min), _bytes(t.memory_per_core_min)
    caps = [c for c in (_bytes(t.memory_max), _bytes(t.memory_per_core_max) * cores) if c]
    candidates = set(caps)
    for cap in caps:
        on_total = _snapped(cap, low, step)
        on_per_core = cores * _snapped(cap // cores, per_core_low, step)
        candidates |= {on_total, on_per_core, _snapped(on_per_core, low, step),
                       cores * _snapped(on_total // cores, per_core_low, step)}
    return max((m for m in candidates if admits(t, cores, m)), default=None)


def entry_name(t: InstanceType) -> str:
    return f"{t.virtual_machine_class}-{t.cores_min}-{t.cores_max}c"


def entry(t: InstanceType) -> Entry | str:
    """The policy's entry, or why it has none."""
    if not t.cores_max:
        return "no sizing policy: any size is admitted, there is no largest"
    if t.cores_max > MAX_CORES:
        return f"cores.max is above DVP's {MAX_CORES}"
    cores = largest_cores(t)
    if cores is None:
        return "no core count of the policy is allowed by DVP's CPU topology"
    if not t.memory_max and not t.memory_per_core_max:
        return "no upper memory bound: any size is admitted, there is no largest"
    memory = largest_memory(t, cores)
    if memory is None:
        return f"no memory size at {cores} cores meets every bound of the policy"
    return Entry(entry_name(t), cores, memory)


def build(types: Iterable[InstanceType]) -> tuple[list[Entry], list[LeftOut]]:
    entries: list[Entry] = []
    left_out: list[LeftOut] = []
    earlier: dict[str, list[InstanceType]] = {}
    for t in sorted(types):
        ref = f'VirtualMachineClass "{t.virtual_machine_class}" policy {t.policy}'
        before = earlier.setdefault(t.virtual_machine_class, [])
        found = entry(t)
        if isinstance(found, str):
            left_out.append(LeftOut(ref, found))
        elif shadow := next((b for b in before if b.cores_min <= found.cpu <= b.cores_max), None):
            # DVP applies the first policy whose range holds the cores (ranges should not overlap, yet may)
            left_out.append(LeftOut(ref, f"{found.cpu} cores fall under the earlier policy {shadow.policy}"))
        else:
            entries.append(found)
        before.append(t)
    return sorted(entries), left_out


def instance_types(entries: Iterable[Entry]) -> list[dict[str, str]]:
    return [e.render() for e in entries]


def same(current: object, desired: list[dict[str, str]]) -> bool:
    """Whether the stored list says what `desired` says (quantities compared by amount, as node-manager reads
    them): then nothing is written."""
    if not isinstance(current, list) or len(current) != len(desired):
        return False
    for have, want in zip(current, desired, strict=True):
        if not isinstance(have, dict) or set(have) != set(want) or have.get("name") != want["name"]:
            return False
        for field in ("cpu", "memory", "rootDisk"):
            try:
                if parse_quantity(have[field]) != parse_quantity(want[field]):
                    return False
            except QuantityError:
                return False
    return True

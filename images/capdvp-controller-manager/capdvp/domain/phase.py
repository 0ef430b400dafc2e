# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What a VirtualMachine's phase means for its DeckhouseMachine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from capdvp.domain import conditions as c
from capdvp.domain import health

RUNNING_PHASES = ("Running", "Migrating")  # a migrating VM keeps serving


@dataclass(frozen=True)
class Outcome:
    ready: bool
    condition: c.Condition  # VirtualMachineReady
    ip: str = ""


def summary(owned: Sequence[Mapping]) -> str:
    """'Secret cloud-init-m: present; VirtualDisk m-boot: Provisioning' for a not-yet-running VM."""
    parts = []
    for obj in owned:
        kind, name = obj.get("kind", "?"), obj.get("metadata", {}).get("name", "?")
        phase = (obj.get("status") or {}).get("phase") or ("present" if kind == "Secret" else "Pending")
        parts.append(f"{kind} {name}: {phase}")
    return "; ".join(parts)


def observe(vm: Mapping, owned: Sequence[Mapping] = ()) -> Outcome:
    status = vm.get("status") or {}
    phase = status.get("phase") or "Pending"
    name = vm.get("metadata", {}).get("name", "")
    if phase in RUNNING_PHASES:
        return Outcome(True, c.Condition(c.VM_READY, c.TRUE, c.VM_RUNNING, f"VirtualMachine {name} is {phase}"),
                       ip=status.get("ipAddress") or "")
    if phase == "Stopped":
        return Outcome(False, c.Condition(c.VM_READY, c.FALSE, c.VM_STOPPED,
                                          f"VirtualMachine {name} is Stopped; start it in DVP or delete the Machine"))
    if phase == "Degraded":
        spec = vm.get("spec") or {}
        what = (f"class {spec.get('virtualMachineClassName')!r}, {spec.get('cpu', {}).get('cores')} cores, "
                f"memory {spec.get('memory', {}).get('size')}")
        msg = f"VirtualMachine {name} is Degraded ({what}); check the VirtualMachineClass sizing policy and DVP events"
        # Not terminal: DVP may recover the VM (the condition then clears); a MachineHealthCheck whose
        # unhealthyMachineConditions name InfrastructureReady=False replaces the machine if it does not.
        return Outcome(False, c.Condition(c.VM_READY, c.FALSE, c.VM_DEGRADED, msg))
    cause = health.pending_cause(vm, owned)
    if cause is not None:
        return Outcome(False, cause)
    detail = f"VirtualMachine {name} is {phase}"
    if owned:
        detail += f" ({summary(owned)})"
    return Outcome(False, c.Condition(c.VM_READY, c.FALSE, c.VM_NOT_READY, detail))

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What a VirtualMachine's phase means for its DeckhouseMachine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from capdvp.domain import conditions as c

RUNNING_PHASES = ("Running", "Migrating")  # a migrating VM keeps serving


@dataclass(frozen=True)
class Outcome:
    ready: bool
    condition: c.Condition  # VirtualMachineReady
    ip: str = ""
    failure: tuple[str, str] | None = None  # terminal: (failureReason, failureMessage)


def summary(owned: Sequence[Mapping]) -> str:
    """'Secret cloud-init-m: present; VirtualDisk m-boot: Provisioning' for a not-yet-running VM."""
    parts = []
    for obj in owned:
        kind, name = obj.get("kind", "?"), obj.get("metadata", {}).get("name", "?")
        phase = (obj.get("status") or {}).get("phase") or ("present" if kind == "Secret" else "Pending")
        parts.append(f"{kind} {name}: {phase}")
    return "; ".join(parts)


def observe(vm: Mapping, has_node_ref: bool, owned_summary: str = "") -> Outcome:
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
        if has_node_ref:
            # The node once joined: DVP may recover it, and MachineHealthCheck watches the Node anyway.
            return Outcome(False, c.Condition(c.VM_READY, c.FALSE, c.VM_DEGRADED, msg))
        return Outcome(False, c.Condition(c.VM_READY, c.FALSE, c.VM_DEGRADED, msg),
                       failure=(c.FAILURE_CREATE, msg))
    detail = f"VirtualMachine {name} is {phase}"
    if owned_summary:
        detail += f" ({owned_summary})"
    return Outcome(False, c.Condition(c.VM_READY, c.FALSE, c.VM_NOT_READY, detail))

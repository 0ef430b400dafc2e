# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineOperation: Pending -> InProgress; the VM's reconcile completes Start/Stop/Restart when the VM
reaches the target phase. A newer operation on the same VM supersedes older ones still in progress."""

from __future__ import annotations

from .. import conditions as C
from ..world import deleting, meta, phase, spec
from .plan import Obj, Plan, Write, changed, new_status, wait_phase

KIND = "VirtualMachineOperation"
POWER = ("Start", "Stop", "Restart")
DONE_WHEN = {"Start": "Running", "Stop": "Stopped"}


def reconcile(op: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(op):
        return plan
    st = new_status(op)
    current = st.get("phase") or ""
    kind, ns = spec(op).get("type"), meta(op).get("namespace")
    vm = world.get("VirtualMachine", ns, spec(op).get("virtualMachineName", ""))
    if current in ("Completed", "Failed", "Superseded"):
        return plan
    if vm is None:
        st["phase"] = "Failed"
        C.put(st, C.COMPLETED, False, C.R_NOT_FOUND, f'VirtualMachine "{spec(op).get("virtualMachineName")}" not found')
    elif current == "":
        st["phase"] = "Pending"
        world.enter(op, "Pending")
    elif current == "Pending":
        if DONE_WHEN.get(kind) == phase(vm):
            st["phase"] = "Completed"
            C.put(st, C.COMPLETED, True, "OperationCompleted", f"the virtual machine is already {phase(vm)}")
        elif wait_phase(plan, world, op, KIND, "Pending", cfg):
            st["phase"] = "InProgress"
            C.put(st, C.COMPLETED, False, "InProgress", f"{kind} in progress")
            world.enter(op, "InProgress")
            for older in world.list(KIND, ns):
                if (meta(older)["name"] != meta(op)["name"] and phase(older) == "InProgress"
                        and spec(older).get("virtualMachineName") == meta(vm)["name"]
                        and spec(older).get("type") in POWER and kind in POWER):
                    sup = new_status(older)
                    sup["phase"] = "Superseded"
                    C.put(sup, C.COMPLETED, False, C.R_SUPERSEDED, f"superseded by {meta(op)['name']}")
                    plan.first.append(Write(KIND, older, status=sup))
    elif current == "InProgress" and kind not in POWER and wait_phase(plan, world, op, KIND, "InProgress", cfg):
        st["phase"] = "Completed"  # Migrate/Evict: nothing to move in the simulation
        C.put(st, C.COMPLETED, True, "OperationCompleted", f"{kind} completed")
    plan.status = changed(op, st)
    return plan

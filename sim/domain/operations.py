# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineOperation as DVP runs it: Pending, then one decision, in DVP's order:
1. the VM is missing -> Failed (VirtualMachineNotFound);
2. an earlier operation on the same VM is unfinished -> Failed (NotReadyToBeExecuted): DVP v1.8.0 has no
   superseding (v1.10 adds the phase Superseded, which v1.8.0's VirtualMachineOperation schema refuses);
3. the type does not apply to the VM's runPolicy -> Failed (NotApplicableForVirtualMachineRunPolicy), or to its
   phase -> Failed (NotApplicableForVirtualMachinePhase);
4. otherwise InProgress; the VM's reconcile completes Start/Stop/Restart when the VM reaches the target phase.
Conditions: Completed (reason says why) and SignalSent. See sim/CONTRACT.md."""

from __future__ import annotations

from .. import conditions as C
from .. import indexes as ix
from ..world import deleting, meta, phase, spec
from .plan import Obj, Plan, changed, new_status, wait_phase

KIND = "VirtualMachineOperation"
POWER = ("Start", "Stop", "Restart")
FINISHED = ("Completed", "Failed")
STOP_START_POLICIES = ("Manual", "AlwaysOnUnlessStoppedManually")
RUN_POLICIES = {"Start": STOP_START_POLICIES, "Stop": STOP_START_POLICIES,
                "Restart": (*STOP_START_POLICIES, "AlwaysOn")}
VM_PHASES = {"Start": ("Stopped", "Stopping"), "Stop": ("Running", "Degraded", "Starting", "Pause", "Pending", ""),
             "Restart": ("Running", "Degraded", "Starting", "Pause")}
# DVP v1.8.0: a migration (Migrate, Evict) reports its migration's step; the simulator's is always running
IN_PROGRESS_REASON = {"Start": C.R_START_IN_PROGRESS, "Stop": C.R_STOP_IN_PROGRESS, "Restart": C.R_RESTART_IN_PROGRESS,
                      "Migrate": C.R_MIGRATION_RUNNING, "Evict": C.R_MIGRATION_RUNNING,
                      "Restore": C.R_RESTORE_IN_PROGRESS, "Clone": C.R_CLONE_IN_PROGRESS}


def _order(op: Obj) -> tuple[str, str]:
    return meta(op).get("creationTimestamp") or "", meta(op)["name"]


def blockers(op: Obj, world) -> list[Obj]:
    """Unfinished operations on the same VM created before this one, oldest first."""
    ns, vm_name = meta(op).get("namespace"), spec(op).get("virtualMachineName")
    return sorted((o for o in world.by(KIND, ix.of_vm, ix.in_ns(ns, vm_name))
                   if spec(o).get("virtualMachineName") == vm_name
                   and phase(o) not in FINISHED and meta(o).get("uid") != meta(op).get("uid")
                   and _order(o) < _order(op)), key=_order)


def _fail(st: Obj, reason: str, message: str) -> None:
    st["phase"] = "Failed"
    C.put(st, C.COMPLETED, False, reason, message)


def reconcile(op: Obj, world, cfg) -> Plan:
    plan = Plan()
    st = new_status(op)
    current = st.get("phase") or ""
    if deleting(op) or current in FINISHED:
        return plan
    kind, ns = spec(op).get("type"), meta(op).get("namespace")
    if current == "":
        st["phase"] = "Pending"
        C.put(st, C.COMPLETED, None, C.UNKNOWN)
        C.put(st, C.SIGNAL_SENT, None, C.UNKNOWN)
        world.enter(op, "Pending")
    elif current == "Pending" and wait_phase(plan, world, op, KIND, "Pending", cfg):
        _decide(op, st, world, plan, kind, ns)
    elif current == "InProgress" and kind not in POWER and not _vm_migrates(op, world, kind, ns) \
            and wait_phase(plan, world, op, KIND, "InProgress", cfg):
        st["phase"] = "Completed"  # Evict, or Migrate of a VM that does not run: nothing to move
        C.put(st, C.COMPLETED, True, C.R_OPERATION_COMPLETED)
    plan.status = changed(op, st)
    return plan


def _vm_migrates(op: Obj, world, kind: str, ns: str) -> bool:
    """A Migrate of a running VM is completed by the VM's reconcile once it runs on the target node (C17)."""
    vm = world.get("VirtualMachine", ns, spec(op).get("virtualMachineName", ""))
    return kind == "Migrate" and phase(vm) in ("Running", "Migrating")


def _decide(op: Obj, st: Obj, world, plan: Plan, kind: str, ns: str) -> None:
    vm = world.get("VirtualMachine", ns, spec(op).get("virtualMachineName", ""))
    if vm is None:
        _fail(st, C.R_VM_NOT_FOUND, "VirtualMachine not found")
        return
    if blockers(op, world):
        _fail(st, C.R_NOT_READY_TO_RUN, "VMOP cannot be executed now. Previously created operation should finish "
                                        "first.")
        return
    run_policy = spec(vm).get("runPolicy") or "AlwaysOnUnlessStoppedManually"
    if kind in RUN_POLICIES and run_policy not in RUN_POLICIES[kind]:
        _fail(st, C.R_NOT_FOR_RUN_POLICY,
              f"Operation type {kind} is not applicable for VirtualMachine with runPolicy {run_policy}")
        return
    if kind in VM_PHASES and phase(vm) not in VM_PHASES[kind]:
        _fail(st, C.R_NOT_FOR_VM_PHASE, f"Operation type {kind} is not applicable for VirtualMachine in phase "
                                        f"{phase(vm)}")
        return
    st["phase"] = "InProgress"
    C.put(st, C.COMPLETED, False, IN_PROGRESS_REASON[kind], "Waiting for the operation to complete.")
    C.put(st, C.SIGNAL_SENT, True, C.R_SIGNAL_SENT)
    world.enter(op, "InProgress")

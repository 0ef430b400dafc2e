# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""In-place updates of a provisioned machine (rule in domain/updates.py).

A warm update is a small state machine kept in one annotation on the DeckhouseMachine,
`<generation>@<start time>`: Stop VMOP -> (VM Stopped) patch VM and boot disk -> Start VMOP -> (VM Running)
annotation removed. VMOP names carry the generation, so repeating a step after a crash is a 409, not a second
operation. Past the deadline the VM is started again and that generation is not retried.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging

from dvp_common.kube import AlreadyExists

from capdvp import resources as r
from capdvp.controllers import guest
from capdvp.controllers.context import Context, Result, format_time, parse_time
from capdvp.controllers.status import StatusDraft
from capdvp.domain import conditions as c
from capdvp.domain import manifests, names, ownership, updates
from capdvp.domain.machine_spec import MAX_ADDITIONAL_DISKS, MachineSpec

log = logging.getLogger(__name__)

WARM_UPDATE = "capdvp.dvp.deckhouse.io/warm-update"
FAILED_GENERATION = "capdvp.dvp.deckhouse.io/update-failed-generation"
UPDATE_TIMEOUT = 600.0
RECHECK = 5.0


def _ensure(ctx: Context, res, body: dict) -> None:
    with contextlib.suppress(AlreadyExists):
        ctx.dvp.create(res, body, ctx.config.dvp_namespace)


def _additional(ctx: Context, machine: str) -> list[dict]:
    labels = {ownership.CLUSTER_UUID: ctx.config.cluster_uuid, ownership.COMPONENT: ownership.COMPONENT_CAPDVP,
              ownership.HOSTNAME: machine}
    index = {names.additional_disk_name(machine, i): i for i in range(MAX_ADDITIONAL_DISKS)}
    disks = [d for d in ctx.dvp.list(r.VIRTUAL_DISK, ctx.config.dvp_namespace, label_selector=labels).items
             if d["metadata"]["name"] in index]
    return sorted(disks, key=lambda d: index[d["metadata"]["name"]])


def _vm_patch(spec: MachineSpec, lmp: str) -> dict:
    return {"spec": {"virtualMachineClassName": spec.vm_class,
                     "cpu": {"cores": spec.cores, "coreFraction": spec.core_fraction},
                     "memory": {"size": spec.memory}, "runPolicy": spec.run_policy, "liveMigrationPolicy": lmp}}


def _hot(ctx: Context, machine: str, spec: MachineSpec, vm: dict, plan: updates.Plan, lmp: str) -> None:
    ns, uuid = ctx.config.dvp_namespace, ctx.config.cluster_uuid
    want = {"runPolicy": spec.run_policy, "liveMigrationPolicy": lmp}
    if any((vm.get("spec") or {}).get(k) != v for k, v in want.items()):
        ctx.dvp.patch(r.VIRTUAL_MACHINE, machine, {"spec": want}, ns)
    disks = manifests.additional_disks(machine, spec, uuid, vm)
    for i in plan.new_disks:
        _ensure(ctx, r.VIRTUAL_DISK, disks[i])
        _ensure(ctx, r.VMBDA, manifests.vmbda(machine, disks[i]["metadata"]["name"], uuid, vm))
        log.info("hot-plugging %s into VM %s/%s", disks[i]["metadata"]["name"], ns, machine)


def reconcile_update(ctx: Context, dm: dict, spec: MachineSpec, vm: dict, control_plane: bool,
                     draft: StatusDraft) -> Result | None:
    """None when no update is in flight (the caller reports the VM phase), else the result to return."""
    meta, ns, uuid = dm["metadata"], ctx.config.dvp_namespace, ctx.config.cluster_uuid
    machine, generation = meta["name"], int(meta.get("generation") or 0)
    annotations = meta.get("annotations") or {}
    lmp = manifests.live_migration_policy(spec, control_plane)
    boot = guest.get_or_none(ctx.dvp, r.VIRTUAL_DISK, names.boot_disk_name(machine), ns) or {}
    plan = updates.classify(spec, lmp, updates.actual_from(vm, boot, _additional(ctx, machine)))
    phase = (vm.get("status") or {}).get("phase")
    in_flight = annotations.get(WARM_UPDATE)
    if plan.kind == updates.Kind.RECREATE:
        draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.RECREATE_REQUIRED,
                              f"{', '.join(plan.changes)} cannot change in place; replace the machine"))
        return None
    if plan.kind == updates.Kind.HOT:
        _hot(ctx, machine, spec, vm, plan, lmp)
        draft.set(c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, f"applied {', '.join(plan.changes)}"))
        return None
    if plan.kind == updates.Kind.WARM:
        if annotations.get(FAILED_GENERATION) == str(generation):
            return None
        if not in_flight:
            in_flight = f"{generation}@{format_time(ctx.now())}"
            dm.update(guest.annotate(ctx, r.DECKHOUSE_MACHINE, dm, {WARM_UPDATE: in_flight}))
        started = parse_time(in_flight.split("@", 1)[1])
        if started and ctx.now() > started + dt.timedelta(seconds=UPDATE_TIMEOUT) and phase != "Stopped":
            _ensure(ctx, r.VMOP, manifests.vmop(machine, "Start", generation, uuid, vm))
            dm.update(guest.annotate(ctx, r.DECKHOUSE_MACHINE, dm, {FAILED_GENERATION: str(generation)}))
            draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, "UpdateTimedOut",
                                  f"VM did not stop within {UPDATE_TIMEOUT:g}s; update of generation "
                                  f"{generation} abandoned"))
            return None
        if phase != "Stopped":
            _ensure(ctx, r.VMOP, manifests.vmop(machine, "Stop", generation, uuid, vm))
            draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_STOPPING,
                                  f"stopping the VM to apply {', '.join(plan.changes)}"))
            draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.UPDATE_STOPPING, "stopping for an in-place update"))
            draft.ready = False
            return Result(requeue_after=RECHECK)
        ctx.dvp.patch(r.VIRTUAL_MACHINE, machine, _vm_patch(spec, lmp), ns)
        if "rootDiskSize" in plan.changes:
            ctx.dvp.patch(r.VIRTUAL_DISK, names.boot_disk_name(machine),
                          {"spec": {"persistentVolumeClaim": {"size": spec.root_disk_size}}}, ns)
        if plan.new_disks:
            _hot(ctx, machine, spec, vm, plan, lmp)
        log.info("VM %s/%s patched for %s", ns, machine, ", ".join(plan.changes))
    if in_flight:
        if phase == "Stopped" or plan.kind == updates.Kind.WARM:
            _ensure(ctx, r.VMOP, manifests.vmop(machine, "Start", int(in_flight.split("@")[0]), uuid, vm))
            draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_STARTING, "starting the updated VM"))
            draft.readiness(c.Condition(c.VM_READY, c.FALSE, c.UPDATE_STARTING, "starting after an in-place update"))
            draft.ready = False
            return Result(requeue_after=RECHECK)
        if phase in ("Running", "Migrating"):
            dm.update(ctx.guest.patch(r.DECKHOUSE_MACHINE, machine, {"metadata": {"annotations": {WARM_UPDATE: None}}},
                                      meta.get("namespace")))
            draft.set(c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, "in-place update applied"))
            return None
        return Result(requeue_after=RECHECK)
    # Nothing to do: the spec is applied. A condition left by an earlier pass (even one written from a stale
    # cache after the update finished) is settled here.
    if any(cond.get("type") == c.IN_PLACE_UPDATE and cond.get("reason") != c.UPDATE_APPLIED
           for cond in (dm.get("status") or {}).get("conditions") or []):
        draft.set(c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, "the spec is applied"))
    return None

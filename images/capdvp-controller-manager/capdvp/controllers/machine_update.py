# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""In-place updates of a provisioned machine (rule in domain/updates.py).

A warm update is a small state machine kept in one annotation on the DeckhouseMachine,
`<generation>@<start time>[@restart]`. By the VM's runPolicy (updates.warm_method): Stop VMOP -> (VM Stopped)
patch VM and boot disk -> Start VMOP -> (VM Running) annotation removed; or, under AlwaysOn, patch -> Restart
VMOP -> (Completed) annotation removed; under AlwaysOff the update is refused. DVP runs one operation per VM at a
time (a new one is refused with 403 while another is unfinished), so an operation is created only when none is
unfinished. VMOP names carry the generation, so repeating a step after a crash is a 409, not a second operation.
Past the deadline (or when DVP fails our operation) the generation is marked failed, our unfinished operation is
deleted, and the VM is started again if it stopped.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging

from dvp_common.kube import AdmissionDenied, AlreadyExists, Invalid

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


class _Blocked(Exception):
    """An operation cannot be created now (another is unfinished, or DVP refused it); the message says why."""


def _operations(ctx: Context, machine: str) -> list[dict]:
    return ctx.dvp.list(r.VMOP, ctx.config.dvp_namespace).items


def _request(ctx: Context, machine: str, op: str, generation: int, vm: dict) -> None:
    """Create our operation unless it exists; _Blocked while DVP would refuse it."""
    name = names.vmop_name(machine, op, generation)
    busy = [o for o in updates.unfinished_operations(_operations(ctx, machine), names.vm_name(machine))
            if o["metadata"]["name"] != name]
    if busy:
        raise _Blocked(f"waiting for VirtualMachineOperation {busy[0]['metadata']['name']} "
                       f"({(busy[0].get('spec') or {}).get('type')}) on the VM to finish")
    try:
        _ensure(ctx, r.VMOP, manifests.vmop(machine, op, generation, ctx.config.cluster_uuid, vm))
    except AdmissionDenied as exc:
        raise _Blocked(f"DVP refused the {op} operation: {exc.message}") from exc


def _operation(ctx: Context, machine: str, op: str, generation: int) -> dict | None:
    return guest.get_or_none(ctx.dvp, r.VMOP, names.vmop_name(machine, op, generation), ctx.config.dvp_namespace)


def _parse(in_flight: str) -> tuple[int, dt.datetime | None, str]:
    gen, _, rest = in_flight.partition("@")
    started, _, method = rest.partition("@")
    return int(gen), parse_time(started), method or updates.STOP_START


def _abandon(ctx: Context, dm: dict, vm: dict, gen: int, method: str, why: str, draft: StatusDraft) -> Result | None:
    """Give the generation up: mark it, withdraw our unfinished operation, and leave the VM running."""
    meta, ns, machine = dm["metadata"], ctx.config.dvp_namespace, dm["metadata"]["name"]
    if (meta.get("annotations") or {}).get(FAILED_GENERATION) != str(gen):
        dm.update(guest.annotate(ctx, r.DECKHOUSE_MACHINE, dm, {FAILED_GENERATION: str(gen)}))
    draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_FAILED, f"{why}; update of generation {gen} "
                                                                         "abandoned"))
    for op in ("Restart",) if method == updates.RESTART else ("Stop",):
        mine = _operation(ctx, machine, op, gen)
        if mine is not None and (mine.get("status") or {}).get("phase") not in updates.VMOP_FINISHED:
            # DVP never lets a Start supersede a Stop: the Stop has to go first.
            ctx.dvp.delete(r.VMOP, mine["metadata"]["name"], ns, missing_ok=True,
                           preconditions={"uid": mine["metadata"]["uid"]})
            log.info("withdrew VirtualMachineOperation %s/%s", ns, mine["metadata"]["name"])
    phase = (vm.get("status") or {}).get("phase")
    if method == updates.STOP_START and phase not in ("Running", "Migrating"):
        try:
            _request(ctx, machine, "Start", gen, vm)
        except _Blocked as exc:
            draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_FAILED, f"{why}; starting the VM again: {exc}"))
            return Result(requeue_after=RECHECK)
        if phase != "Starting":
            return Result(requeue_after=RECHECK)
    dm.update(ctx.guest.patch(r.DECKHOUSE_MACHINE, machine, {"metadata": {"annotations": {WARM_UPDATE: None}}},
                              meta.get("namespace")))
    return None


def _patch_vm(ctx: Context, machine: str, spec: MachineSpec, vm: dict, plan: updates.Plan, lmp: str) -> None:
    ns = ctx.config.dvp_namespace
    ctx.dvp.patch(r.VIRTUAL_MACHINE, machine, _vm_patch(spec, lmp), ns)
    if "rootDiskSize" in plan.changes:
        ctx.dvp.patch(r.VIRTUAL_DISK, names.boot_disk_name(machine),
                      {"spec": {"persistentVolumeClaim": {"size": spec.root_disk_size}}}, ns)
    if plan.new_disks:
        _hot(ctx, machine, spec, vm, plan, lmp)
    log.info("VM %s/%s patched for %s", ns, machine, ", ".join(plan.changes))


def _waiting(draft: StatusDraft, reason: str, message: str) -> Result:
    draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, reason, message))
    draft.readiness(c.Condition(c.VM_READY, c.FALSE, reason, message))
    draft.ready = False
    return Result(requeue_after=RECHECK)


def reconcile_update(ctx: Context, dm: dict, spec: MachineSpec, vm: dict, control_plane: bool,
                     draft: StatusDraft) -> Result | None:
    """None when no update is in flight (the caller reports the VM phase), else the result to return."""
    meta, ns = dm["metadata"], ctx.config.dvp_namespace
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
    if plan.kind == updates.Kind.HOT and not in_flight:
        _hot(ctx, machine, spec, vm, plan, lmp)
        draft.set(c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, f"applied {', '.join(plan.changes)}"))
        return None
    if plan.kind == updates.Kind.WARM and not in_flight:
        if annotations.get(FAILED_GENERATION) == str(generation):
            return None
        run_policy = (vm.get("spec") or {}).get("runPolicy", "")
        method = updates.warm_method(run_policy)
        if not method:
            draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_REFUSED,
                                  f"{', '.join(plan.changes)} need a restart, which DVP does not offer for "
                                  f"runPolicy {run_policy}; change runPolicy or replace the machine"))
            return None
        in_flight = f"{generation}@{format_time(ctx.now())}" + ("@restart" if method == updates.RESTART else "")
        dm.update(guest.annotate(ctx, r.DECKHOUSE_MACHINE, dm, {WARM_UPDATE: in_flight}))
    if not in_flight:
        # Nothing to do: the spec is applied. A condition left by an earlier pass (even one written from a stale
        # cache after the update finished) is settled here.
        if any(cond.get("type") == c.IN_PLACE_UPDATE and cond.get("reason") not in (c.UPDATE_APPLIED,)
               for cond in (dm.get("status") or {}).get("conditions") or []):
            draft.set(c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, "the spec is applied"))
        return None
    gen, started, method = _parse(in_flight)
    step = ("Restart",) if method == updates.RESTART else ("Stop", "Start")
    failed = [o for o in (_operation(ctx, machine, op, gen) for op in step)
              if o is not None and (o.get("status") or {}).get("phase") == "Failed"]
    if failed:
        return _abandon(ctx, dm, vm, gen, method, f"DVP failed VirtualMachineOperation "
                        f"{failed[0]['metadata']['name']}: {_failure(failed[0])}", draft)
    if annotations.get(FAILED_GENERATION) == str(gen):
        return _abandon(ctx, dm, vm, gen, method, "abandoned", draft)
    if started and ctx.now() > started + dt.timedelta(seconds=UPDATE_TIMEOUT) and phase != "Stopped":
        return _abandon(ctx, dm, vm, gen, method, f"VM did not {'restart' if method == updates.RESTART else 'stop'} "
                        f"within {UPDATE_TIMEOUT:g}s", draft)
    try:
        if method == updates.RESTART:
            return _restart(ctx, dm, spec, vm, plan, lmp, gen, draft)
        return _stop_start(ctx, dm, spec, vm, plan, lmp, gen, draft)
    except _Blocked as exc:
        return _waiting(draft, c.UPDATE_WAITING, str(exc))
    except (AdmissionDenied, Invalid) as exc:
        # DVP's validators refused the new spec (e.g. a size outside the class's sizing policy): it never will
        # accept it, so the generation is given up and the VM runs on with its old spec.
        return _abandon(ctx, dm, vm, gen, method, f"DVP refused the update: {exc.message}", draft)


def _failure(vmop: dict) -> str:
    status = vmop.get("status") or {}
    conds = [x.get("message") for x in status.get("conditions") or [] if x.get("message")]
    return status.get("failureMessage") or (conds[0] if conds else "phase Failed")


def _stop_start(ctx: Context, dm: dict, spec: MachineSpec, vm: dict, plan: updates.Plan, lmp: str, gen: int,
                draft: StatusDraft) -> Result | None:
    machine = dm["metadata"]["name"]
    phase = (vm.get("status") or {}).get("phase")
    if plan.kind == updates.Kind.WARM and phase != "Stopped":
        _request(ctx, machine, "Stop", gen, vm)
        return _waiting(draft, c.UPDATE_STOPPING, f"stopping the VM to apply {', '.join(plan.changes)}")
    if plan.kind != updates.Kind.NONE:
        _patch_vm(ctx, machine, spec, vm, plan, lmp)
    if phase == "Stopped" or plan.kind != updates.Kind.NONE:
        _request(ctx, machine, "Start", gen, vm)
        return _waiting(draft, c.UPDATE_STARTING, "starting the updated VM")
    if phase in ("Running", "Migrating"):
        return _finish(ctx, dm, draft)
    return Result(requeue_after=RECHECK)


def _restart(ctx: Context, dm: dict, spec: MachineSpec, vm: dict, plan: updates.Plan, lmp: str, gen: int,
             draft: StatusDraft) -> Result | None:
    machine = dm["metadata"]["name"]
    if plan.kind != updates.Kind.NONE:
        _patch_vm(ctx, machine, spec, vm, plan, lmp)  # DVP applies it on the restart
    op = _operation(ctx, machine, "Restart", gen)
    if op is None:
        _request(ctx, machine, "Restart", gen, vm)
        return _waiting(draft, c.UPDATE_RESTARTING, "restarting the VM (runPolicy AlwaysOn) to apply the update")
    if (op.get("status") or {}).get("phase") != "Completed" or (vm.get("status") or {}).get("phase") != "Running":
        return _waiting(draft, c.UPDATE_RESTARTING, "restarting the VM (runPolicy AlwaysOn) to apply the update")
    return _finish(ctx, dm, draft)


def _finish(ctx: Context, dm: dict, draft: StatusDraft) -> None:
    meta = dm["metadata"]
    dm.update(ctx.guest.patch(r.DECKHOUSE_MACHINE, meta["name"], {"metadata": {"annotations": {WARM_UPDATE: None}}},
                              meta.get("namespace")))
    draft.set(c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, "in-place update applied"))
    return None

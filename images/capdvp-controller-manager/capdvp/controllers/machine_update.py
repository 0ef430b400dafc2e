# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""In-place updates of a provisioned machine: the rule is domain/updates.py, the state machine
domain/warm_update.py; this adapter reads what it needs, executes the step and writes the conditions.

DVP runs one operation per VM at a time (a new one is refused with 403 while another is unfinished), so an
operation is created only when none is unfinished. Operation names carry the generation, so repeating a step after
a crash finds the operation already made instead of starting a second one.
"""

from __future__ import annotations

import logging

from dvp_common.kube import AdmissionDenied, Invalid

from capdvp import resources as r
from capdvp.controllers import guest
from capdvp.controllers.context import Context, Result
from capdvp.controllers.status import StatusDraft
from capdvp.domain import conditions as c
from capdvp.domain import manifests, names, ownership, updates
from capdvp.domain import warm_update as w
from capdvp.domain.machine_spec import MAX_ADDITIONAL_DISKS, MachineSpec

log = logging.getLogger(__name__)

WARM_UPDATE = "capdvp.dvp.deckhouse.io/warm-update"
FAILED_GENERATION = "capdvp.dvp.deckhouse.io/update-failed-generation"


def _additional(ctx: Context, machine: str) -> list[dict]:
    index = {names.additional_disk_name(machine, i): i for i in range(MAX_ADDITIONAL_DISKS)}
    disks = [d for d in ctx.dvp.disks.list({ownership.HOSTNAME: machine}) if d["metadata"]["name"] in index]
    return sorted(disks, key=lambda d: index[d["metadata"]["name"]])


def _vm_patch(spec: MachineSpec, lmp: str) -> dict:
    return {"spec": {"virtualMachineClassName": spec.vm_class,
                     "cpu": manifests.cpu(spec),
                     "memory": {"size": spec.memory}, "runPolicy": spec.run_policy, "liveMigrationPolicy": lmp}}


def _hot(ctx: Context, machine: str, spec: MachineSpec, vm: dict, plan: updates.Plan, lmp: str) -> None:
    ns, uuid = ctx.dvp.namespace, ctx.dvp.cluster_uuid
    want = {"runPolicy": spec.run_policy, "liveMigrationPolicy": lmp}
    if any((vm.get("spec") or {}).get(k) != v for k, v in want.items()):
        vm = ctx.dvp.vms.patch(machine, {"spec": want}, vm)
    disks = manifests.additional_disks(machine, spec, uuid, vm)
    for i in plan.new_disks:
        ctx.dvp.disks.create(disks[i])
        ctx.dvp.attachments.create(manifests.vmbda(machine, disks[i]["metadata"]["name"], uuid, vm))
        log.info("hot-plugging %s into VM %s/%s", disks[i]["metadata"]["name"], ns, machine)


class _Blocked(Exception):
    """An operation cannot be created now (another is unfinished, or DVP refused it); the message says why."""


def _request(ctx: Context, machine: str, op: str, generation: int, vm: dict) -> None:
    """Create our operation unless it exists; _Blocked while DVP would refuse it."""
    name = names.vmop_name(machine, op, generation)
    busy = w.blocked_by(ctx.dvp.operations.on_vm(names.vm_name(machine)), names.vm_name(machine), name)
    if busy:
        raise _Blocked(busy)
    try:
        ctx.dvp.operations.create(manifests.vmop(machine, op, generation, ctx.dvp.cluster_uuid, vm))
    except AdmissionDenied as exc:
        raise _Blocked(f"DVP refused the {op} operation: {exc.message}") from exc


def _operations(ctx: Context, machine: str, in_flight: str | None) -> dict[str, dict]:
    """Our operations of the in-flight generation, by type."""
    if not in_flight:
        return {}
    gen, _, method = w.parse_in_flight(in_flight)
    found = {op: ctx.dvp.operations.get_or_none(names.vmop_name(machine, op, gen)) for op in w.steps(method)}
    return {op: o for op, o in found.items() if o is not None}


def _observe(ctx: Context, dm: dict, vm: dict, plan: updates.Plan) -> w.Observed:
    meta = dm["metadata"]
    annotations = meta.get("annotations") or {}
    in_flight = annotations.get(WARM_UPDATE)
    stale = any(cond.get("type") == c.IN_PLACE_UPDATE and cond.get("reason") != c.UPDATE_APPLIED
                for cond in (dm.get("status") or {}).get("conditions") or [])
    return w.Observed(plan=plan, generation=int(meta.get("generation") or 0), in_flight=in_flight,
                      failed_generation=annotations.get(FAILED_GENERATION),
                      run_policy=(vm.get("spec") or {}).get("runPolicy", ""),
                      vm_phase=str((vm.get("status") or {}).get("phase") or ""),
                      operations=_operations(ctx, meta["name"], in_flight), stale_condition=stale)


def reconcile_update(ctx: Context, dm: dict, spec: MachineSpec, vm: dict, control_plane: bool,
                     draft: StatusDraft) -> Result | None:
    """None when no update is in flight (the caller reports the VM phase), else the result to return."""
    machine = dm["metadata"]["name"]
    lmp = manifests.live_migration_policy(spec, control_plane)
    boot = ctx.dvp.disks.get_or_none(names.boot_disk_name(machine))
    plan = updates.classify(spec, lmp, updates.actual_from(vm, boot or {}, _additional(ctx, machine)))
    observed = _observe(ctx, dm, vm, plan)
    step = w.decide(observed, ctx.now(), ctx.config.update_timeout)
    if step.action is w.Action.BEGIN:
        dm.update(guest.annotate(ctx, r.DECKHOUSE_MACHINE, dm, {WARM_UPDATE: step.in_flight}))
        observed = _observe(ctx, dm, vm, plan)
        step = w.decide(observed, ctx.now(), ctx.config.update_timeout)
    if step.action in (w.Action.NONE, w.Action.HOT):
        if step.action is w.Action.HOT:
            _hot(ctx, machine, spec, vm, plan, lmp)
        if step.condition:
            draft.set(step.condition)
        return None
    if step.action is w.Action.ABANDON:
        return _abandon(ctx, dm, vm, step, draft)
    try:
        if step.patch:
            vm = _patch_vm(ctx, machine, spec, vm, boot, plan, lmp)
        if step.request:
            _request(ctx, machine, step.request, step.generation, vm)
    except _Blocked as exc:
        return _waiting(ctx, draft, c.UPDATE_WAITING, str(exc))
    except (AdmissionDenied, Invalid) as exc:
        return _abandon(ctx, dm, vm, w.refused(observed, step, exc.message), draft)
    if step.action is w.Action.FINISH:
        dm.update(_clear(ctx, dm))
        draft.set(c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, "in-place update applied"))
        return None
    if step.waiting:
        return _waiting(ctx, draft, *step.waiting)
    return Result(requeue_after=ctx.config.recheck)


def _abandon(ctx: Context, dm: dict, vm: dict, step: w.Step, draft: StatusDraft) -> Result | None:
    """Execute the give-up step: mark the generation, withdraw our unfinished operation, start the VM again."""
    plan, machine = step.abandon, dm["metadata"]["name"]
    assert plan is not None and step.condition is not None
    if plan.mark:
        dm.update(guest.annotate(ctx, r.DECKHOUSE_MACHINE, dm, {FAILED_GENERATION: str(step.generation)}))
    draft.set(step.condition)
    for name in plan.withdraw:
        mine = ctx.dvp.operations.get_or_none(name)
        if mine is not None:
            ctx.dvp.operations.delete(name, mine)
            log.info("withdrew VirtualMachineOperation %s/%s", ctx.dvp.namespace, name)
    if plan.start:
        try:
            _request(ctx, machine, w.START, step.generation, vm)
        except _Blocked as exc:
            draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_FAILED,
                                  f"{step.why}; starting the VM again: {exc}"))
            return Result(requeue_after=ctx.config.recheck)
    if not plan.finish:
        return Result(requeue_after=ctx.config.recheck)
    dm.update(_clear(ctx, dm))
    return None


def _clear(ctx: Context, dm: dict) -> dict:
    meta = dm["metadata"]
    return ctx.guest.patch(r.DECKHOUSE_MACHINE, meta["name"], {"metadata": {"annotations": {WARM_UPDATE: None}}},
                           meta.get("namespace"))


def _patch_vm(ctx: Context, machine: str, spec: MachineSpec, vm: dict, boot: dict | None, plan: updates.Plan,
              lmp: str) -> dict:
    vm = ctx.dvp.vms.patch(machine, _vm_patch(spec, lmp), vm)
    if "rootDiskSize" in plan.changes and boot is not None:
        ctx.dvp.disks.patch(names.boot_disk_name(machine),
                            {"spec": {"persistentVolumeClaim": {"size": spec.root_disk_size}}}, boot)
    if plan.new_disks:
        _hot(ctx, machine, spec, vm, plan, lmp)
    log.info("VM %s/%s patched for %s", ctx.dvp.namespace, machine, ", ".join(plan.changes))
    return vm


def _waiting(ctx: Context, draft: StatusDraft, reason: str, message: str) -> Result:
    draft.set(c.Condition(c.IN_PLACE_UPDATE, c.FALSE, reason, message))
    draft.readiness(c.Condition(c.VM_READY, c.FALSE, reason, message))
    draft.ready = False
    return Result(requeue_after=ctx.config.recheck)

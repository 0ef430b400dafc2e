# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The in-place update state machine of a provisioned machine, as a pure function: what it sees -> the next step.

A warm update is kept in one annotation on the DeckhouseMachine, `<generation>@<start time>[@restart]`. By the
VM's runPolicy (updates.warm_method): Stop -> (VM Stopped) patch the VM and boot disk -> Start -> (VM Running)
done; or, under AlwaysOn, patch -> Restart -> (Completed, Running) done; under AlwaysOff the update is refused.
Past the deadline, when DVP fails our operation, or when DVP refuses the new spec, the generation is given up:
marked failed, our unfinished operation withdrawn (DVP never lets a Start supersede a Stop), and the VM started
again if it stopped. The controller executes the step and calls again on the next pass.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from dvp_common.rfc3339 import format_time, parse_time

from capdvp.domain import conditions as c
from capdvp.domain import updates

STOP, START, RESTART = "Stop", "Start", "Restart"
RUNNING = ("Running", "Migrating")


class Action(Enum):
    NONE = "none"  # no update in flight: the caller reports the VM phase (with `condition`, when set)
    HOT = "hot"  # apply the hot changes to the running VM, report `condition`, then as NONE
    BEGIN = "begin"  # write `in_flight` onto the machine, then decide again
    ACT = "act"  # patch the VM when `patch`, request `request` when set, then wait (`waiting`) and re-check
    FINISH = "finish"  # patch the VM when `patch`, clear the in-flight mark, report applied
    ABANDON = "abandon"  # give the generation up (see Abandon)


@dataclass(frozen=True)
class Abandon:
    mark: bool  # write the failed-generation annotation (not written yet)
    withdraw: tuple[str, ...]  # names of our unfinished operations to delete
    start: bool  # request Start: the VM stopped for the update
    finish: bool  # clear the in-flight mark after that (else re-check: the VM is not starting yet)


@dataclass(frozen=True)
class Step:
    action: Action
    condition: c.Condition | None = None
    waiting: tuple[str, str] | None = None  # (reason, message) while the update waits; None: re-check silently
    patch: bool = False
    request: str = ""
    in_flight: str = ""
    generation: int = 0
    method: str = ""
    abandon: Abandon | None = None
    why: str = ""  # ABANDON: why the generation is given up


@dataclass(frozen=True)
class Observed:
    plan: updates.Plan
    generation: int  # the DeckhouseMachine's metadata.generation
    in_flight: str | None  # the warm-update annotation
    failed_generation: str | None  # the failed-generation annotation
    run_policy: str  # the VM's current spec.runPolicy
    vm_phase: str
    # Our operations of the in-flight generation, by type (absent: not made). Read for in_flight's generation.
    operations: Mapping[str, Mapping] = field(default_factory=dict)
    stale_condition: bool = False  # an InPlaceUpdate condition other than UpdateApplied is on the machine


def format_in_flight(generation: int, started: dt.datetime, method: str) -> str:
    stamp = format_time(started)
    return f"{generation}@{stamp}" + ("@restart" if method == updates.RESTART else "")


def parse_in_flight(value: str) -> tuple[int, dt.datetime | None, str]:
    gen, _, rest = value.partition("@")
    started, _, method = rest.partition("@")
    when = parse_time(started) if started else None
    return int(gen), when, updates.RESTART if method == "restart" else updates.STOP_START


def steps(method: str) -> tuple[str, ...]:
    """The operations of one warm update by this method."""
    return (RESTART,) if method == updates.RESTART else (STOP, START)


def failure(vmop: Mapping) -> str:
    status = vmop.get("status") or {}
    conds = [x.get("message") for x in status.get("conditions") or [] if x.get("message")]
    return str(status.get("failureMessage") or (conds[0] if conds else "phase Failed"))


def _phase(obj: Mapping | None) -> str:
    return str(((obj or {}).get("status") or {}).get("phase") or "")


def decide(o: Observed, now: dt.datetime, timeout: float) -> Step:
    plan, changes = o.plan, ", ".join(o.plan.changes)
    if plan.kind == updates.Kind.RECREATE:
        return Step(Action.NONE, c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.RECREATE_REQUIRED,
                                             f"{changes} cannot change in place; replace the machine"))
    if plan.kind == updates.Kind.HOT and not o.in_flight:
        return Step(Action.HOT, c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, f"applied {changes}"))
    if plan.kind == updates.Kind.WARM and not o.in_flight:
        if o.failed_generation == str(o.generation):
            return Step(Action.NONE)
        method = updates.warm_method(o.run_policy)
        if not method:
            return Step(Action.NONE, c.Condition(
                c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_REFUSED,
                f"{changes} need a restart, which DVP does not offer for runPolicy {o.run_policy}; change "
                "runPolicy or replace the machine"))
        return Step(Action.BEGIN, in_flight=format_in_flight(o.generation, now, method), generation=o.generation,
                    method=method)
    if not o.in_flight:
        # Nothing to do: the spec is applied. A condition left by an earlier pass (even one written from a stale
        # cache after the update finished) is settled here.
        return Step(Action.NONE, c.Condition(c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, "the spec is applied")
                    if o.stale_condition else None)
    gen, started, method = parse_in_flight(o.in_flight)
    ours = [o.operations[t] for t in steps(method) if t in o.operations]
    failed = [op for op in ours if _phase(op) == "Failed"]
    if failed:
        return abandon(o, gen, method, f"DVP failed VirtualMachineOperation {failed[0]['metadata']['name']}: "
                                       f"{failure(failed[0])}")
    if o.failed_generation == str(gen):
        return abandon(o, gen, method, "abandoned")
    if started and now > started + dt.timedelta(seconds=timeout) and o.vm_phase != "Stopped":
        verb = "restart" if method == updates.RESTART else "stop"
        return abandon(o, gen, method, f"VM did not {verb} within {timeout:g}s")
    patch = plan.kind != updates.Kind.NONE
    if method == updates.RESTART:
        restarting = (c.UPDATE_RESTARTING, "restarting the VM (runPolicy AlwaysOn) to apply the update")
        op = o.operations.get(RESTART)
        if op is None:
            return Step(Action.ACT, waiting=restarting, patch=patch, request=RESTART, generation=gen, method=method)
        if _phase(op) != "Completed" or o.vm_phase != "Running":
            return Step(Action.ACT, waiting=restarting, patch=patch, generation=gen, method=method)
        return Step(Action.FINISH, patch=patch, generation=gen, method=method)
    if plan.kind == updates.Kind.WARM and o.vm_phase != "Stopped":
        return Step(Action.ACT, waiting=(c.UPDATE_STOPPING, f"stopping the VM to apply {changes}"), request=STOP,
                    generation=gen, method=method)
    if o.vm_phase == "Stopped" or patch:
        return Step(Action.ACT, waiting=(c.UPDATE_STARTING, "starting the updated VM"), patch=patch, request=START,
                    generation=gen, method=method)
    if o.vm_phase in RUNNING:
        return Step(Action.FINISH, generation=gen, method=method)
    return Step(Action.ACT, generation=gen, method=method)


def abandon(o: Observed, gen: int, method: str, why: str) -> Step:
    """Give generation `gen` up: mark it, withdraw our unfinished operation, and leave the VM running."""
    # DVP never lets a Start supersede a Stop: the Stop (or the Restart) has to go first.
    first = RESTART if method == updates.RESTART else STOP
    mine = o.operations.get(first)
    withdraw = (str(mine["metadata"]["name"]),) if mine is not None and _phase(mine) not in updates.VMOP_FINISHED \
        else ()
    start = method == updates.STOP_START and o.vm_phase not in RUNNING
    return Step(Action.ABANDON, c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_FAILED,
                                            f"{why}; update of generation {gen} abandoned"),
                generation=gen, method=method, why=why,
                abandon=Abandon(mark=o.failed_generation != str(gen), withdraw=withdraw, start=start,
                                finish=not start or o.vm_phase == "Starting"))


def refused(o: Observed, step: Step, message: str) -> Step:
    """DVP's validators refused the new spec (e.g. a size outside the class's sizing policy): it never will
    accept it, so the generation is given up and the VM runs on with its old spec."""
    return abandon(o, step.generation, step.method, f"DVP refused the update: {message}")


def blocked_by(vmops: list[Mapping], vm_name: str, own: str) -> str | None:
    """Why DVP would refuse our operation `own` now (it runs one operation per VM at a time), or None."""
    busy = [x for x in updates.unfinished_operations(vmops, vm_name) if x["metadata"]["name"] != own]
    if not busy:
        return None
    return (f"waiting for VirtualMachineOperation {busy[0]['metadata']['name']} "
            f"({(busy[0].get('spec') or {}).get('type')}) on the VM to finish")

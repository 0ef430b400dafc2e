# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The warm-update and deletion state machines as pure functions: a table of what is seen -> the next step.

No clock and no API: `now` is passed in, every input is a value.
"""

from __future__ import annotations

import datetime as dt

import pytest
from capdvp.domain import conditions as c
from capdvp.domain import deletion, names, updates
from capdvp.domain import warm_update as w
from capdvp.domain.deletion import Left, Next

T0 = dt.datetime(2026, 12, 2, 12, 0, 0, tzinfo=dt.UTC)
WARM = updates.Plan(updates.Kind.WARM, ("memory",))
HOT = updates.Plan(updates.Kind.HOT, ("additionalDisks",), (1,))
NONE = updates.Plan(updates.Kind.NONE)
RECREATE = updates.Plan(updates.Kind.RECREATE, ("bootloader",))
STOP_START_G3 = "3@2026-12-02T12:00:00Z"
RESTART_G3 = "3@2026-12-02T12:00:00Z@restart"


def op(name: str, phase: str = "") -> dict:
    return {"metadata": {"name": name}, "status": {"phase": phase} if phase else {}}


def seen(plan=WARM, in_flight=None, phase="Running", run_policy="AlwaysOnUnlessStoppedManually", ops=None,
         failed=None, stale=False, generation=3) -> w.Observed:
    return w.Observed(plan=plan, generation=generation, in_flight=in_flight, failed_generation=failed,
                      run_policy=run_policy, vm_phase=phase, operations=ops or {}, stale_condition=stale)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


STEPPING = [
    # (what is seen, seconds after the update began) -> (action, operation requested, patch, waiting reason)
    ("recreate is never done in place", seen(RECREATE), 0, (w.Action.NONE, "", False, None)),
    ("hot changes apply to the running VM", seen(HOT), 0, (w.Action.HOT, "", False, None)),
    ("warm change begins", seen(), 0, (w.Action.BEGIN, "", False, None)),
    ("a failed generation is not retried", seen(failed="3"), 0, (w.Action.NONE, "", False, None)),
    ("AlwaysOff offers no restart", seen(run_policy="AlwaysOff"), 0, (w.Action.NONE, "", False, None)),
    ("nothing in flight, spec applied", seen(NONE), 0, (w.Action.NONE, "", False, None)),
    ("stop first", seen(in_flight=STOP_START_G3), 10, (w.Action.ACT, "Stop", False, c.UPDATE_STOPPING)),
    ("still stopping", seen(in_flight=STOP_START_G3, phase="Stopping", ops={"Stop": op("w-1-stop-g3")}), 10,
     (w.Action.ACT, "Stop", False, c.UPDATE_STOPPING)),
    ("stopped: patch and start", seen(in_flight=STOP_START_G3, phase="Stopped", ops={"Stop": op("s", "Completed")}),
     10, (w.Action.ACT, "Start", True, c.UPDATE_STARTING)),
    ("patched, still stopped: start", seen(NONE, in_flight=STOP_START_G3, phase="Stopped"), 10,
     (w.Action.ACT, "Start", False, c.UPDATE_STARTING)),
    ("starting: re-check", seen(NONE, in_flight=STOP_START_G3, phase="Starting"), 10,
     (w.Action.ACT, "", False, None)),
    ("running again: done", seen(NONE, in_flight=STOP_START_G3, phase="Running"), 10,
     (w.Action.FINISH, "", False, None)),
    ("a stopped VM past the deadline still starts", seen(NONE, in_flight=STOP_START_G3, phase="Stopped"), 601,
     (w.Action.ACT, "Start", False, c.UPDATE_STARTING)),
    ("restart: patch and request", seen(in_flight=RESTART_G3, run_policy="AlwaysOn"), 10,
     (w.Action.ACT, "Restart", True, c.UPDATE_RESTARTING)),
    ("restart running", seen(NONE, in_flight=RESTART_G3, ops={"Restart": op("r", "InProgress")}), 10,
     (w.Action.ACT, "", False, c.UPDATE_RESTARTING)),
    ("restart completed, VM running: done", seen(NONE, in_flight=RESTART_G3, ops={"Restart": op("r", "Completed")}),
     10, (w.Action.FINISH, "", False, None)),
    ("restart completed, VM not running yet", seen(NONE, in_flight=RESTART_G3, phase="Starting",
                                                   ops={"Restart": op("r", "Completed")}), 10,
     (w.Action.ACT, "", False, c.UPDATE_RESTARTING)),
]


@pytest.mark.parametrize(("case", "observed", "after", "expected"), STEPPING, ids=[s[0] for s in STEPPING])
def test_warm_update_steps(case, observed, after, expected):
    step = w.decide(observed, at(after), 600.0)
    assert (step.action, step.request, step.patch, step.waiting[0] if step.waiting else None) == expected


def test_begin_writes_the_generation_the_time_and_the_method():
    assert w.decide(seen(), T0, 600.0).in_flight == STOP_START_G3
    assert w.decide(seen(run_policy="AlwaysOn"), T0, 600.0).in_flight == RESTART_G3
    assert w.parse_in_flight(RESTART_G3) == (3, T0, updates.RESTART)
    assert w.parse_in_flight("3@2026-12-02T12:00:00Z") == (3, T0, updates.STOP_START)


def test_conditions_of_the_terminal_verdicts():
    assert w.decide(seen(RECREATE), T0, 600).condition == c.Condition(
        c.IN_PLACE_UPDATE, c.FALSE, c.RECREATE_REQUIRED, "bootloader cannot change in place; replace the machine")
    assert w.decide(seen(run_policy="AlwaysOff"), T0, 600).condition == c.Condition(
        c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_REFUSED, "memory need a restart, which DVP does not offer for runPolicy "
        "AlwaysOff; change runPolicy or replace the machine")
    assert w.decide(seen(NONE, stale=True), T0, 600).condition == c.Condition(
        c.IN_PLACE_UPDATE, c.TRUE, c.UPDATE_APPLIED, "the spec is applied")
    assert w.decide(seen(NONE), T0, 600).condition is None


ABANDONING = [
    # (what is seen, seconds) -> (why, Abandon)
    ("deadline while running, Stop unfinished",
     seen(in_flight=STOP_START_G3, ops={"Stop": op("w-1-stop-g3", "InProgress")}), 601,
     ("VM did not stop within 600s", w.Abandon(mark=True, withdraw=("w-1-stop-g3",), start=False, finish=True))),
    ("DVP failed the Stop; the VM is stopping",
     seen(in_flight=STOP_START_G3, phase="Stopping",
          ops={"Stop": {"metadata": {"name": "w-1-stop-g3"}, "status": {"phase": "Failed", "failureMessage": "x"}}}),
     10, ("DVP failed VirtualMachineOperation w-1-stop-g3: x",
          w.Abandon(mark=True, withdraw=(), start=True, finish=False))),
    ("already marked, the VM is starting again", seen(in_flight=STOP_START_G3, phase="Starting", failed="3"), 10,
     ("abandoned", w.Abandon(mark=False, withdraw=(), start=True, finish=True))),
    ("restart past the deadline", seen(in_flight=RESTART_G3, ops={"Restart": op("w-1-restart-g3", "Pending")}),
     700, ("VM did not restart within 600s",
           w.Abandon(mark=True, withdraw=("w-1-restart-g3",), start=False, finish=True))),
]


@pytest.mark.parametrize(("case", "observed", "after", "expected"), ABANDONING, ids=[a[0] for a in ABANDONING])
def test_warm_update_is_given_up(case, observed, after, expected):
    step = w.decide(observed, at(after), 600.0)
    assert step.action is w.Action.ABANDON
    assert (step.why, step.abandon) == expected
    assert step.condition == c.Condition(c.IN_PLACE_UPDATE, c.FALSE, c.UPDATE_FAILED,
                                         f"{expected[0]}; update of generation 3 abandoned")


def test_a_refused_spec_gives_the_generation_up():
    o = seen(in_flight=STOP_START_G3, phase="Stopped")
    step = w.refused(o, w.decide(o, at(10), 600.0), "memory 1Ti is outside the sizing policy")
    assert step.why == "DVP refused the update: memory 1Ti is outside the sizing policy"
    assert step.abandon == w.Abandon(mark=True, withdraw=(), start=True, finish=False)


def test_an_unfinished_foreign_operation_blocks_ours():
    ops = [{"metadata": {"name": "admin-migrate"}, "spec": {"type": "Migrate", "virtualMachineName": "w-1"},
            "status": {"phase": "InProgress"}},
           {"metadata": {"name": "w-1-stop-g3"}, "spec": {"type": "Stop", "virtualMachineName": "w-1"}},
           {"metadata": {"name": "other-vm"}, "spec": {"type": "Stop", "virtualMachineName": "w-2"}}]
    assert w.blocked_by(ops, "w-1", "w-1-stop-g3") == \
        "waiting for VirtualMachineOperation admin-migrate (Migrate) on the VM to finish"
    assert w.blocked_by(ops[1:], "w-1", "w-1-stop-g3") is None


D = deletion.deadlines(T0, 600.0, 300.0)
ORPHAN_VM = {"dvp.deckhouse.io/orphaned-vm": "w-1", "dvp.deckhouse.io/orphaned-vm-timestamp": "2026-12-02T12:10:01Z"}
DISK = names.orphaned_disk_annotation("w-1-boot")

DELETING = [
    # (what is left, seconds after the deletionTimestamp) -> Step
    ("VM there: detach and delete it, wait", Left(vm="w-1", disks=["w-1-boot"]), 10,
     deletion.Step(Next.WAIT, detach=True, delete_vm=True)),
    ("VM already deleting: wait", Left(vm="w-1", vm_deleting=True), 10,
     deletion.Step(Next.WAIT, detach=True)),
    ("VM gone: Secret and disks, wait", Left(disks=["w-1-boot"]), 10,
     deletion.Step(Next.WAIT, delete_secret=True, delete_disks=("w-1-boot",))),
    ("disks deleting: wait", Left(disks=["w-1-boot"], disks_deleting=frozenset({"w-1-boot"})), 700,
     deletion.Step(Next.WAIT, delete_secret=True)),
    ("nothing left: release", Left(), 10, deletion.Step(Next.RELEASE, delete_secret=True)),
    ("VM past its deadline: orphaned, disks deleted, release", Left(vm="w-1", vm_deleting=True, disks=["w-1-boot"]),
     601, deletion.Step(Next.RELEASE, detach=True, delete_disks=("w-1-boot",),
                        orphans={**ORPHAN_VM, DISK: "w-1-boot"})),
    ("disks past their deadline: orphaned, release", Left(disks=["w-1-boot"]), 900,
     deletion.Step(Next.RELEASE, delete_secret=True, delete_disks=("w-1-boot",), orphans={DISK: "w-1-boot"})),
]


@pytest.mark.parametrize(("case", "left", "after", "expected"), DELETING, ids=[d[0] for d in DELETING])
def test_machine_deletion_steps(case, left, after, expected):
    assert deletion.machine_step("w-1", left, at(after), D) == expected


def test_dvp_failing_is_retried_until_the_disks_deadline_then_released():
    assert deletion.machine_failed("w-1", at(899), D) == deletion.Step(Next.RETRY)
    assert deletion.machine_failed("w-1", at(900), D) == deletion.Step(Next.RELEASE, orphans={
        "dvp.deckhouse.io/orphaned-vm": "w-1", "dvp.deckhouse.io/orphaned-vm-timestamp": "2026-12-02T12:15:00Z"})


def test_cluster_cleanup_waits_until_its_deadline():
    assert deletion.cluster_step([], at(5), T0, 900) == deletion.Step(Next.RELEASE)
    assert deletion.cluster_step(["VirtualMachine/w-1"], at(899), T0, 900) == deletion.Step(Next.WAIT)
    assert deletion.cluster_step(["VirtualMachine/w-1", "VirtualDisk/w-1-boot"], at(900), T0, 900) == \
        deletion.Step(Next.RELEASE, orphans={
            "dvp.deckhouse.io/orphaned-objects": "VirtualDisk/w-1-boot,VirtualMachine/w-1",
            "dvp.deckhouse.io/orphaned-vm-timestamp": "2026-12-02T12:15:00Z"})

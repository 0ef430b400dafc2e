# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""GuestBooted and LiveMigratable: DVP's AgentReady, Running and Migratable conditions plus the Machine's nodeRef ->
our conditions; the boot wait is bounded from DVP's Running condition."""

from __future__ import annotations

import datetime as dt

import pytest
from capdvp import resources as r
from capdvp.controllers.context import DONE, Result
from capdvp.domain import guest

from testkit.capdvp.world import DVP_NS, NS

T0 = dt.datetime(2026, 12, 2, 12, 0, 0, tzinfo=dt.UTC)


def cond(ctype, status, reason, message="", ltt="2026-12-02T12:00:00Z"):
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": ltt}


def vm(*conds):
    return {"metadata": {"name": "w-1"}, "status": {"phase": "Running", "conditions": list(conds)}}


RUNNING = cond("Running", "True", "Running")
AGENT = cond("AgentReady", "True", "AgentReady")
NO_AGENT = cond("AgentReady", "False", "AgentNotReady", "guest agent is not connected")

BOOT = [
    # (case, vm, node registered, was booted, running, seconds after Running) -> (status, reason, timed out, recheck)
    ("VM not running", vm(), False, False, False, 0, ("False", "WaitingForVM", False, None)),
    ("agent not ready", vm(RUNNING, NO_AGENT), False, False, True, 60, ("False", "GuestAgentNotReady", False, 840.0)),
    ("agent never reported", vm(RUNNING), True, False, True, 60, ("False", "GuestAgentNotReady", False, 840.0)),
    ("agent ready, no Node", vm(RUNNING, AGENT), False, False, True, 60, ("False", "WaitingForNode", False, 840.0)),
    ("agent and Node", vm(RUNNING, AGENT), True, False, True, 60, ("True", "GuestBooted", False, None)),
    ("past the timeout", vm(RUNNING, NO_AGENT), False, False, True, 900, ("False", "GuestBootTimedOut", True, None)),
    ("Node without agent past the timeout", vm(RUNNING), True, False, True, 901,
     ("False", "GuestBootTimedOut", True, None)),
    ("once booted it stays", vm(RUNNING, NO_AGENT), False, True, True, 5000, ("True", "GuestBooted", False, None)),
    ("no Running condition: no deadline yet", vm(NO_AGENT), False, False, True, 5000,
     ("False", "GuestAgentNotReady", False, None)),
]


@pytest.mark.parametrize(("case", "the_vm", "node", "was", "running", "after", "expected"), BOOT,
                         ids=[b[0] for b in BOOT])
def test_guest_booted(case, the_vm, node, was, running, after, expected):
    out = guest.booted(the_vm, node, was, T0 + dt.timedelta(seconds=after), 900.0, running)
    assert (out.condition.type, out.condition.status, out.condition.reason, out.timed_out,
            out.recheck_after) == ("GuestBooted", *expected)


def test_boot_messages_name_what_is_missing():
    assert guest.booted(vm(RUNNING, NO_AGENT), False, False, T0, 900.0, True).condition.message == (
        "DVP's guest agent in VirtualMachine w-1 is not ready (AgentNotReady: guest agent is not connected)")
    assert guest.booted(vm(RUNNING, AGENT), False, False, T0, 900.0, True).condition.message == (
        "no Node with providerID dvp://w-1 has registered yet")
    assert guest.booted(vm(RUNNING, AGENT), False, False, T0 + dt.timedelta(seconds=900), 900.0,
                        True).condition.message == (
        "no Node with providerID dvp://w-1 has registered yet, 900s after the VM started")


@pytest.mark.parametrize(("conds", "expected"), [
    ([cond("Migratable", "True", "VirtualMachineMigratable")], ("True", "VirtualMachineMigratable", "")),
    ([cond("Migratable", "False", "VirtualMachineNonMigratable", "disks are not shared")],
     ("False", "VirtualMachineNonMigratable", "disks are not shared")),
    ([], ("Unknown", "MigratabilityUnknown", "DVP has not reported whether the VM can live-migrate")),
])
def test_live_migratable_mirrors_dvps_condition(conds, expected):
    out = guest.live_migratable(vm(*conds))
    assert (out.type, out.status, out.reason, out.message) == ("LiveMigratable", *expected)


def _dvp_status(world, *conds):
    world.dvp.set_status(r.VIRTUAL_MACHINE, "w-1", DVP_NS, {"phase": "Running", "ipAddress": "10.10.0.5",
                                                            "conditions": list(conds)})


def test_a_machine_is_booted_only_with_the_agent_and_its_node(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    _dvp_status(world, RUNNING, NO_AGENT, cond("Migratable", "False", "VirtualMachineNonMigratable", "local disk"))
    world.clock.advance(60)
    assert world.reconcile("w-1") == Result(requeue_after=840.0)  # the deadline is a wake-up of its own
    booted = world.condition("w-1", "GuestBooted")
    assert (booted["status"], booted["reason"]) == ("False", "GuestAgentNotReady")
    assert (world.condition("w-1")["status"], world.condition("w-1")["reason"]) == ("True", "VMRunning")
    migratable = world.condition("w-1", "LiveMigratable")
    assert (migratable["status"], migratable["reason"], migratable["message"]) == (
        "False", "VirtualMachineNonMigratable", "local disk")
    _dvp_status(world, RUNNING, AGENT, cond("Migratable", "True", "VirtualMachineMigratable"))
    world.reconcile("w-1")
    assert world.condition("w-1", "GuestBooted")["reason"] == "WaitingForNode"
    world.node_ref("w-1")
    assert world.reconcile("w-1") == DONE
    booted = world.condition("w-1", "GuestBooted")
    assert (booted["status"], booted["reason"]) == ("True", "GuestBooted")
    assert world.condition("w-1", "LiveMigratable")["status"] == "True"


def test_a_guest_that_never_boots_turns_ready_false_after_the_timeout(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    _dvp_status(world, RUNNING, NO_AGENT)
    world.clock.advance(900)
    assert world.reconcile("w-1") == DONE
    ready, booted = world.condition("w-1"), world.condition("w-1", "GuestBooted")
    assert (ready["status"], ready["reason"]) == ("False", "GuestBootTimedOut")
    assert (booted["status"], booted["reason"]) == ("False", "GuestBootTimedOut")
    status = world.dm("w-1")["status"]
    assert status["initialization"] == {"provisioned": True} and "failureReason" not in status
    # the agent and the Node come late: the machine recovers
    _dvp_status(world, RUNNING, AGENT)
    world.guest.set_status(r.MACHINE, "w-1", NS, {"nodeRef": {"name": "w-1"}})
    world.reconcile("w-1")
    assert (world.condition("w-1")["status"], world.condition("w-1", "GuestBooted")["status"]) == ("True", "True")

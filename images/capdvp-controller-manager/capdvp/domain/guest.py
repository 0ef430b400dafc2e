# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The guest inside a running VM: did it boot (GuestBooted), can DVP move it (LiveMigratable).

A VM Running in DVP only says the hypervisor runs it. The guest booted when DVP's guest-agent condition
(`AgentReady`) is True and a Node with our providerID registered (Cluster API sets Machine status.nodeRef only for
the Node whose spec.providerID is the Machine's). Until then the wait is bounded: from DVP's `Running` condition
going True, past `timeout` seconds, Ready turns False with GuestBootTimedOut, which a MachineHealthCheck (or its
nodeStartupTimeout) acts on. Once booted the condition stays True: later the Node's health is what counts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from dvp_common.dvp import conditions as D
from dvp_common.rfc3339 import TimeError, parse_time

from capdvp.domain import conditions as c
from capdvp.domain.health import dvp_condition

DVP_AGENT_READY = D.VM_AGENT_READY.value
DVP_RUNNING = D.VM_RUNNING.value
DVP_MIGRATABLE = D.VM_MIGRATABLE.value


@dataclass(frozen=True)
class Boot:
    condition: c.Condition  # GuestBooted
    timed_out: bool = False
    recheck_after: float | None = None  # seconds until the deadline, while waiting for it


def running_since(vm: Mapping) -> dt.datetime | None:
    cond = dvp_condition(vm, DVP_RUNNING)
    if not cond or cond.get("status") != c.TRUE or not cond.get("lastTransitionTime"):
        return None
    try:
        return parse_time(cond["lastTransitionTime"])
    except TimeError:
        return None


def booted(vm: Mapping, node_registered: bool, was_booted: bool, now: dt.datetime, timeout: float,
           vm_running: bool) -> Boot:
    name = (vm.get("metadata") or {}).get("name", "")
    done = Boot(c.Condition(c.GUEST_BOOTED, c.TRUE, c.GUEST_BOOTED_REASON, f"the guest of VM {name} booted"))
    if was_booted:
        return done
    if not vm_running:
        return Boot(c.Condition(c.GUEST_BOOTED, c.FALSE, c.GUEST_WAITING_FOR_VM,
                                f"VirtualMachine {name} is not running yet"))
    agent = dvp_condition(vm, DVP_AGENT_READY) or {}
    if agent.get("status") != c.TRUE:
        why = f" ({agent.get('reason')}: {agent.get('message', '')})" if agent.get("reason") else ""
        reason, msg = c.GUEST_AGENT_NOT_READY, f"DVP's guest agent in VirtualMachine {name} is not ready{why}"
    elif not node_registered:
        reason, msg = c.GUEST_WAITING_FOR_NODE, f"no Node with providerID dvp://{name} has registered yet"
    else:
        return done
    since = running_since(vm)
    if since is None:
        return Boot(c.Condition(c.GUEST_BOOTED, c.FALSE, reason, msg))
    left = (since + dt.timedelta(seconds=timeout) - now).total_seconds()
    if left > 0:
        return Boot(c.Condition(c.GUEST_BOOTED, c.FALSE, reason, msg), recheck_after=left)
    return Boot(c.Condition(c.GUEST_BOOTED, c.FALSE, c.GUEST_BOOT_TIMED_OUT,
                            f"{msg}, {timeout:g}s after the VM started"), timed_out=True)


def live_migratable(vm: Mapping) -> c.Condition:
    """DVP's Migratable condition as ours (status, reason and message as DVP wrote them)."""
    cond = dvp_condition(vm, DVP_MIGRATABLE)
    if not cond or cond.get("status") not in (c.TRUE, c.FALSE) or not cond.get("reason"):
        return c.Condition(c.LIVE_MIGRATABLE, c.UNKNOWN, c.MIGRATABLE_UNKNOWN,
                           "DVP has not reported whether the VM can live-migrate")
    return c.Condition(c.LIVE_MIGRATABLE, cond["status"], cond["reason"], cond.get("message") or "")

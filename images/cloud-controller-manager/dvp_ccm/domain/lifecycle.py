# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Node lifecycle rules: delete Nodes whose VM is gone, taint Nodes whose VM is stopped or gone.

As Kubernetes' cloud-node-lifecycle controller, with DVP's VM phases:
- a Ready Node is left alone, except that the shutdown and out-of-service taints come off once it is Ready and
  its VM is Running again;
- NotReady and the VM gone: the Node is deleted (with out-of-service handling on: first tainted, see below);
- NotReady and the VM Stopped: the `node.cloudprovider.kubernetes.io/shutdown` taint (NoSchedule).

Non-graceful node failure (switchable): when a Node has been NotReady AND its VM Stopped or
gone for longer than the grace period, it gets `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`, so
Kubernetes force-deletes its pods and detaches their volumes at once. Durations are measured from API timestamps
(the Node's Ready transition, the VM's Running transition, the taint's timeAdded), so a restarted CCM resumes
where it was. A VM between phases (a guest-initiated shutdown, Stopping/Starting) is neither running nor stopped:
nothing is decided, and the Node is looked at again after `recheck` seconds, so no race leaves it untainted. A
deleted VM counts as stopped since the Node went NotReady; the Node is then kept `hold` seconds after tainting
(pods and volumes move first) before it is deleted.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from dvp_common.dvp import conditions as D
from dvp_common.rfc3339 import format_time, parse_time_or_none

from . import taints as T

Obj = dict[str, Any]


@dataclass(frozen=True)
class LifecycleConfig:
    out_of_service: bool = True
    grace: float = 60.0  # seconds NotReady + VM down before the out-of-service taint
    hold: float = 60.0  # seconds a tainted Node whose VM is gone is kept before it is deleted
    recheck: float = 10.0  # seconds between looks at a NotReady Node


@dataclass
class Decision:
    delete: bool = False
    taints: list[T.Taint] | None = None  # the new taint list, None: unchanged
    requeue_after: float | None = None
    reasons: list[str] = field(default_factory=list)  # event reasons of what changed


def _condition(obj: Obj | None, kind: str) -> Obj | None:
    return next((c for c in ((obj or {}).get("status") or {}).get("conditions") or [] if c.get("type") == kind), None)


def node_ready(node: Obj) -> tuple[bool, dt.datetime | None]:
    """(Ready, since when it is not): a Node without a Ready condition counts as not ready since unknown."""
    cond = _condition(node, "Ready")
    if cond is None:
        return False, None
    if cond.get("status") == "True":
        return True, None
    return False, parse_time_or_none(cond.get("lastTransitionTime"))


def vm_down_since(vm: Obj | None, node_since: dt.datetime | None) -> dt.datetime | None:
    """When the VM stopped running: its Running=False transition, else (gone, or no condition) the Node's."""
    cond = _condition(vm, D.VM_RUNNING.value)
    if vm is not None and cond is not None and cond.get("status") != "True":
        return parse_time_or_none(cond.get("lastTransitionTime")) or node_since
    return node_since


def decide(node: Obj, vm: Obj | None, now: dt.datetime, cfg: LifecycleConfig) -> Decision:
    """`vm` is our VM for this Node, or None when it is gone (callers confirm absence with a live read)."""
    out = Decision()
    current = T.taints(node)
    wanted = list(current)
    ready, since = node_ready(node)
    phase = str(((vm or {}).get("status") or {}).get("phase") or "")
    healthy = ready and vm is not None and phase == "Running"

    if vm is not None and phase != "Stopped" or ready:
        wanted = T.without(wanted, T.SHUTDOWN)
    if healthy:
        wanted = T.without(wanted, T.OUT_OF_SERVICE)
    down = vm is None or phase == "Stopped"
    if not ready:
        if vm is not None and phase == "Stopped" and not T.has(node, T.SHUTDOWN):
            wanted = T.with_taint(wanted, T.shutdown_taint())
        if not down:
            out.requeue_after = cfg.recheck  # between phases: look again, never decide on a passing state
        elif vm is None and not cfg.out_of_service:
            out.delete = True
        elif cfg.out_of_service:
            started = max((t for t in (since, vm_down_since(vm, since)) if t is not None), default=None)
            waited = (now - started).total_seconds() if started else 0.0
            taint = T.find(node, T.OUT_OF_SERVICE)
            if started is None or waited < cfg.grace:
                out.requeue_after = max(0.5, cfg.grace - waited) if started else cfg.recheck
            elif taint is None:
                wanted = T.with_taint(wanted, T.out_of_service_taint(format_time(now)))
                out.requeue_after = cfg.hold if vm is None else None
            elif vm is None:
                added = parse_time_or_none(taint.get("timeAdded")) or now
                held = (now - added).total_seconds()
                if held >= cfg.hold:
                    out.delete = True
                else:
                    out.requeue_after = max(0.5, cfg.hold - held)
        if out.requeue_after is None and not out.delete:
            out.requeue_after = cfg.recheck  # a down Node is watched until it is healthy or gone
    if out.delete:
        out.reasons.append("DeletingNode")
        return out
    if [t.get("key") for t in wanted] != [t.get("key") for t in current]:
        out.taints = wanted
        before, after = {t.get("key") for t in current}, {t.get("key") for t in wanted}
        for key, reason in ((T.SHUTDOWN, "Shutdown"), (T.OUT_OF_SERVICE, "OutOfService")):
            if key in after - before:
                out.reasons.append(f"Taint{reason}")
            if key in before - after:
                out.reasons.append(f"Untaint{reason}")
    return out

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import datetime as dt

from ccm_builders import node, vm
from dvp_ccm.domain import taints as T
from dvp_ccm.domain.lifecycle import LifecycleConfig, decide

NOW = dt.datetime(2026, 1, 1, 0, 10, tzinfo=dt.UTC)
CFG = LifecycleConfig(out_of_service=True, grace=60, hold=30, recheck=5)
OFF = LifecycleConfig(out_of_service=False, grace=60, hold=30, recheck=5)
U = "u"
LONG_AGO = "2026-01-01T00:00:00Z"  # 10 minutes before NOW
JUST_NOW = "2026-01-01T00:09:50Z"  # 10 s before NOW
OOS = T.out_of_service_taint("2026-01-01T00:09:00Z")


def keys(taints):
    return [t["key"] for t in taints]


def test_ready_node_with_running_vm_is_left_alone():
    d = decide(node("n", provider_id="dvp://n"), vm("n", U), NOW, CFG)
    assert (d.delete, d.taints, d.requeue_after, d.reasons) == (False, None, None, [])


def test_ready_node_loses_shutdown_and_out_of_service_taints_once_vm_runs():
    n = node("n", provider_id="dvp://n", taints=[T.shutdown_taint(), OOS, {"key": "x", "effect": "NoSchedule"}])
    d = decide(n, vm("n", U), NOW, CFG)
    assert keys(d.taints) == ["x"] and d.reasons == ["UntaintShutdown", "UntaintOutOfService"]


def test_gone_vm_deletes_notready_node_without_out_of_service():
    d = decide(node("n", ready=False, since=JUST_NOW), None, NOW, OFF)
    assert d.delete and d.reasons == ["DeletingNode"]


def test_gone_vm_with_ready_node_is_not_deleted():
    assert not decide(node("n"), None, NOW, OFF).delete


def test_gone_vm_waits_grace_then_taints_then_holds_then_deletes():
    young = decide(node("n", ready=False, since=JUST_NOW), None, NOW, CFG)
    assert not young.delete and young.taints is None and young.requeue_after == 50
    old = decide(node("n", ready=False, since=LONG_AGO), None, NOW, CFG)
    assert keys(old.taints) == [T.OUT_OF_SERVICE] and old.requeue_after == 30
    assert old.taints[0] == {"key": T.OUT_OF_SERVICE, "value": "nodeshutdown", "effect": "NoExecute",
                             "timeAdded": "2026-01-01T00:10:00Z"}
    held = decide(node("n", ready=False, since=LONG_AGO, taints=[T.out_of_service_taint("2026-01-01T00:09:50Z")]),
                  None, NOW, CFG)
    assert not held.delete and held.taints is None and held.requeue_after == 20
    done = decide(node("n", ready=False, since=LONG_AGO, taints=[OOS]), None, NOW, CFG)
    assert done.delete


def test_stopped_vm_gets_shutdown_taint_then_out_of_service_after_grace():
    stopped_recently = vm("n", U, phase="Stopped", running_since=JUST_NOW)
    d = decide(node("n", ready=False, since=LONG_AGO), stopped_recently, NOW, CFG)
    assert keys(d.taints) == [T.SHUTDOWN] and d.requeue_after == 50 and d.reasons == ["TaintShutdown"]
    stopped_long = vm("n", U, phase="Stopped", running_since=LONG_AGO)
    d = decide(node("n", ready=False, since=LONG_AGO, taints=[T.shutdown_taint()]), stopped_long, NOW, CFG)
    assert keys(d.taints) == [T.SHUTDOWN, T.OUT_OF_SERVICE] and d.reasons == ["TaintOutOfService"]
    assert not d.delete


def test_switch_off_never_adds_out_of_service():
    d = decide(node("n", ready=False, since=LONG_AGO), vm("n", U, phase="Stopped", running_since=LONG_AGO), NOW, OFF)
    assert keys(d.taints) == [T.SHUTDOWN] and d.requeue_after == 5


def test_guest_initiated_shutdown_between_phases_decides_nothing_and_rechecks():
    for phase in ("Stopping", "Starting", "Pending"):
        d = decide(node("n", ready=False, since=LONG_AGO), vm("n", U, phase=phase), NOW, CFG)
        assert (d.delete, d.taints, d.requeue_after) == (False, None, 5), phase


def test_out_of_service_stays_until_node_ready_and_vm_running():
    tainted = [T.shutdown_taint(), OOS]
    starting = decide(node("n", ready=False, since=LONG_AGO, taints=tainted), vm("n", U, phase="Starting"), NOW, CFG)
    assert keys(starting.taints) == [T.OUT_OF_SERVICE]  # shutdown taint off: the VM is no longer stopped
    running_not_ready = decide(node("n", ready=False, since=LONG_AGO, taints=[OOS]), vm("n", U), NOW, CFG)
    assert running_not_ready.taints is None
    healthy = decide(node("n", taints=[OOS]), vm("n", U), NOW, CFG)
    assert healthy.taints == [] and healthy.reasons == ["UntaintOutOfService"]


def test_node_without_ready_condition_is_rechecked_not_tainted():
    d = decide(node("n", ready=None), None, NOW, CFG)
    assert (d.delete, d.taints, d.requeue_after) == (False, None, 5)

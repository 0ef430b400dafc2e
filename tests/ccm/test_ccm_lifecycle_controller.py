# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

from ccm_builders import node, vm
from ccm_context import UUID, world
from dvp_ccm.controllers.lifecycle import LifecycleController
from dvp_ccm.domain import events as E
from dvp_ccm.domain import taints as T
from dvp_ccm.domain.lifecycle import LifecycleConfig
from dvp_ccm.runner import DONE, Result
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import NODE

OFF = LifecycleConfig(out_of_service=False, recheck=5)
ON = LifecycleConfig(out_of_service=True, grace=60, hold=30, recheck=5)
LONG_AGO = "2026-01-01T00:00:00Z"


def test_gone_vm_is_confirmed_live_then_node_deleted_by_uid():
    w = world(OFF)
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0", ready=False))
    assert LifecycleController(w.ctx).reconcile("w-0") == DONE
    assert w.dvp.calls == [("get", "VirtualMachine", "w-0")]
    assert w.guest_writes() == [("delete", "Node", "w-0")] and w.guest.peek(NODE, "w-0") is None
    assert [e[0] for e in w.events()] == [E.DELETING_NODE]


def test_ready_node_without_vm_costs_no_dvp_request_and_is_kept():
    w = world(OFF)
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0"))
    assert LifecycleController(w.ctx).reconcile("w-0") == DONE
    assert w.dvp.calls == [] and w.guest_writes() == []


def test_foreign_vm_behind_provider_id_keeps_the_node():
    w = world(OFF)
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", "someone-else"))
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0", ready=False))
    assert LifecycleController(w.ctx).reconcile("w-0") == DONE
    assert w.guest_writes() == [] and w.dvp.writes() == []
    assert [e[0] for e in w.events()] == [E.INSTANCE_NOT_OURS]


def test_stopped_vm_shutdown_taint_on_and_off():
    w = world(OFF)
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", UUID, phase="Stopped"))
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0", ready=False))
    assert LifecycleController(w.ctx).reconcile("w-0") == Result(requeue_after=5)
    assert w.guest.peek(NODE, "w-0")["spec"]["taints"] == [T.shutdown_taint()]
    w.dvp.client.patch(VIRTUAL_MACHINE, "w-0", {"status": {"phase": "Running"}}, "dvp-project", subresource="status")
    LifecycleController(w.ctx).reconcile("w-0")
    assert w.guest.peek(NODE, "w-0")["spec"]["taints"] == []
    assert [e[0] for e in w.events()] == [E.TAINT_SHUTDOWN, E.UNTAINT_SHUTDOWN]


def test_out_of_service_then_deletion_of_a_node_whose_vm_is_gone():
    w = world(ON)
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0", ready=False, since=LONG_AGO))
    assert LifecycleController(w.ctx).reconcile("w-0") == Result(requeue_after=30)
    assert w.guest.peek(NODE, "w-0")["spec"]["taints"] == [T.out_of_service_taint("2026-01-01T00:10:00Z")]
    assert LifecycleController(w.ctx).reconcile("w-0") == Result(requeue_after=30)  # held: pods move first
    w.guest.client.patch(NODE, "w-0", {"spec": {"taints": [T.out_of_service_taint("2026-01-01T00:09:00Z")]}})
    assert LifecycleController(w.ctx).reconcile("w-0") == DONE
    assert w.guest.peek(NODE, "w-0") is None


def test_foreign_and_uninitialised_nodes_are_not_touched():
    w = world(OFF)
    w.guest.put(NODE, node("a", provider_id="kind://docker/a", ready=False))
    w.guest.put(NODE, node("b", ready=False))
    assert LifecycleController(w.ctx).reconcile("a") == DONE
    assert LifecycleController(w.ctx).reconcile("b") == DONE
    assert w.guest_writes() == [] and w.dvp.calls == []


def test_malformed_provider_id_is_an_event_only():
    w = world(OFF)
    w.guest.put(NODE, node("a", provider_id="dvp://x/y", ready=False))
    assert LifecycleController(w.ctx).reconcile("a") == DONE
    assert w.guest_writes() == [] and w.dvp.calls == [] and [e[0] for e in w.events()] == [E.BAD_PROVIDER_ID]

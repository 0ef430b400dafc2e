# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import pytest
from ccm_builders import UNINIT, node, vm
from ccm_context import UUID, world
from dvp_ccm.controllers.node import NodeController
from dvp_ccm.domain import events as E
from dvp_ccm.domain.instances import INSTANCE_TYPE, VM_CLASS, ZONE
from dvp_ccm.runner import DONE, Result
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import NODE

OTHER = {"key": "example.com/keep", "effect": "NoSchedule"}
ADDRS = [{"type": "InternalIP", "address": "10.66.0.10"}, {"type": "ExternalIP", "address": "10.66.0.10"},
         {"type": "Hostname", "address": "w-0"}]


def test_initialises_from_the_vm_found_by_hostname():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", UUID, node_selector={ZONE: "z1"}))
    w.guest.put(NODE, node("w-0", taints=[OTHER, UNINIT]))
    assert NodeController(w.ctx).reconcile("w-0") == DONE
    assert w.guest_writes() == [("patch", "Node", "w-0", "status"), ("patch", "Node", "w-0")]
    got = w.guest.peek(NODE, "w-0")
    assert got["spec"] == {"providerID": "dvp://w-0", "taints": [OTHER]}
    assert got["status"]["addresses"] == ADDRS
    assert got["metadata"]["labels"] == {ZONE: "z1", INSTANCE_TYPE: "generic.2c.4Gi", VM_CLASS: "generic"}
    assert [e[0] for e in w.events()] == [E.INITIALIZED]
    assert w.dvp.writes() == []


def test_provider_id_names_the_vm_and_is_kept():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, vm("vm-7", UUID, hostname="w-0"))
    w.guest.put(NODE, node("w-0", provider_id="dvp://vm-7", taints=[UNINIT]))
    NodeController(w.ctx).reconcile("w-0")
    assert w.guest.peek(NODE, "w-0")["spec"] == {"providerID": "dvp://vm-7", "taints": []}


def test_vm_without_ip_keeps_the_taint_and_retries():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", UUID, ip=""))
    w.guest.put(NODE, node("w-0", taints=[UNINIT]))
    assert NodeController(w.ctx).reconcile("w-0") == Result(retry=True)
    assert w.guest_writes() == []


def test_no_vm_is_an_event_and_a_retry():
    w = world()
    w.guest.put(NODE, node("w-0", taints=[UNINIT]))
    assert NodeController(w.ctx).reconcile("w-0") == Result(retry=True)
    assert w.guest_writes() == [] and [e[0] for e in w.events()] == [E.INSTANCE_NOT_FOUND]


def test_foreign_vm_named_by_provider_id_is_refused_untouched():
    w = world()
    foreign = w.dvp.put(VIRTUAL_MACHINE, vm("victim", "other-cluster-uuid"))
    w.dvp.put(VIRTUAL_MACHINE, vm("w-1", "", component=None, hostname="w-0"))  # no UUID at all: not considered
    w.guest.put(NODE, node("w-0", provider_id="dvp://victim", taints=[UNINIT]))
    assert NodeController(w.ctx).reconcile("w-0") == DONE
    assert w.guest_writes() == [] and w.dvp.writes() == []
    assert w.events() == [(E.INSTANCE_NOT_OURS, "w-0",
                           'Node "w-0": VirtualMachine "victim" is not a VM of this cluster')]
    assert w.dvp.peek(VIRTUAL_MACHINE, "victim", "dvp-project") == foreign


@pytest.mark.parametrize("pid", ["dvp://a/b", "dvp://"])
def test_malformed_provider_id_is_an_event_only(pid):
    w = world()
    w.guest.put(NODE, node("w-0", provider_id=pid, taints=[UNINIT]))
    assert NodeController(w.ctx).reconcile("w-0") == DONE
    assert w.guest_writes() == [] and [e[0] for e in w.events()] == [E.BAD_PROVIDER_ID]
    assert f'spec.providerID "{pid}"' in w.events()[0][2]


def test_foreign_node_is_never_touched():
    w = world()
    w.guest.put(NODE, node("w-0", provider_id="openstack:///x", taints=[UNINIT]))
    assert NodeController(w.ctx).reconcile("w-0") == DONE
    assert w.guest.calls == [] and w.dvp.calls == []


def test_address_refresh_on_initialised_nodes_and_no_write_when_equal():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", UUID, ip="10.66.0.99"))
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0", addresses=ADDRS))
    NodeController(w.ctx).reconcile("w-0")
    # the addresses, then the labels the Node lacks (it was initialised before they existed)
    assert w.guest_writes() == [("patch", "Node", "w-0", "status"), ("patch", "Node", "w-0")]
    assert w.guest.peek(NODE, "w-0")["status"]["addresses"][0] == {"type": "InternalIP", "address": "10.66.0.99"}
    assert w.guest.peek(NODE, "w-0")["metadata"]["labels"] == {INSTANCE_TYPE: "generic.2c.4Gi", VM_CLASS: "generic"}
    NodeController(w.ctx).reconcile("w-0")
    assert len(w.guest_writes()) == 2
    assert w.dvp.calls == []  # everything from the VM cache


def test_vm_losing_its_ip_keeps_the_node_addresses():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", UUID, ip=""))
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0", addresses=ADDRS,
                           labels={INSTANCE_TYPE: "generic.2c.4Gi", VM_CLASS: "generic"}))
    NodeController(w.ctx).reconcile("w-0")
    assert w.guest_writes() == []


def test_two_vms_with_one_hostname_is_an_error():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, vm("a", UUID, hostname="w-0"))
    w.dvp.put(VIRTUAL_MACHINE, vm("b", UUID, hostname="w-0"))
    w.guest.put(NODE, node("w-0", taints=[UNINIT]))
    with pytest.raises(ValueError, match='Node "w-0": 2 VMs carry dvp.deckhouse.io/hostname=w-0: a, b'):
        NodeController(w.ctx).reconcile("w-0")


def test_concurrent_node_change_is_retried_not_overwritten():
    w = world()
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", UUID))
    w.guest.put(NODE, node("w-0", taints=[UNINIT], addresses=ADDRS))
    stale = w.guest.peek(NODE, "w-0")
    w.guest.client.patch(NODE, "w-0", {"spec": {"taints": [UNINIT, OTHER]}})  # someone adds a taint meanwhile
    w.ctx.nodes = type("S", (), {"get": lambda self, k: stale, "items": lambda self: [stale]})()
    assert NodeController(w.ctx).reconcile("w-0") == Result(retry=True)
    assert w.guest.peek(NODE, "w-0")["spec"]["taints"] == [UNINIT, OTHER]

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A cluster switched from the Go module (issue 46): its parent Service (same name `a<uid>`, no labels, selector
`{dvp.deckhouse.io/<name>: loadbalancer}`) and its labelled VMs beside our node VMs. A guest Service deletion
always finishes, writes nothing to a foreign object and says what stays in DVP."""

from __future__ import annotations

import copy

from ccm_builders import node, service, vm
from ccm_context import UUID, world
from dvp_ccm.controllers.service import ServiceController
from dvp_ccm.domain import events as E
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.runner import DONE, Result
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import NODE, SERVICE
from informed_api import NS

UID = "0c1f2e3d-4b5a-6978-8a9b-acbdcedf0011"
LBN = "a0c1f2e3d4b5a69788a9bacbdcedf001"
KEY = L.LB_LABEL_PREFIX + LBN  # upstream's per-Service label, and our filtered one
IP = "192.0.2.7"
UPSTREAM_PARENT = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": LBN, "namespace": NS},  # no labels
                   "spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Cluster",
                            "selector": {KEY: "loadbalancer"},
                            "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080}]},
                   "status": {"loadBalancer": {"ingress": [{"ip": IP}]}}}


def switched(w, *, upstream_vms: bool = True, parent: dict | None = UPSTREAM_PARENT) -> dict:
    """Our node VMs w-0, w-1 (w-1 still carrying the per-Service label), the Go module's u-0, u-1 (our cluster
    UUID, no component label: not ours) carrying it, the parent Service, and the guest Service upstream served,
    now being deleted. Returns the parent as stored."""
    for i in range(2):
        extra = {KEY: "loadbalancer"} if i == 1 else {}
        w.dvp.put(VIRTUAL_MACHINE, vm(f"w-{i}", UUID, ip=f"10.66.0.{10 + i}", extra_labels=extra))
        w.guest.put(NODE, node(f"w-{i}", provider_id=f"dvp://w-{i}"))
        if upstream_vms:
            w.dvp.put(VIRTUAL_MACHINE, vm(f"u-{i}", UUID, component=None, ip=f"10.66.0.{20 + i}",
                                          extra_labels={KEY: "loadbalancer"}))
    stored = w.dvp.put(SERVICE, copy.deepcopy(parent)) if parent is not None else None
    svc = service("web", "shop")
    svc["metadata"].update(uid=UID, finalizers=[LB.FINALIZER])
    svc["status"] = {"loadBalancer": {"ingress": [{"ip": IP}]}}
    w.guest.put(SERVICE, svc)
    w.guest.client.delete(SERVICE, "web", "shop")  # the finalizer keeps it, with its deletionTimestamp
    return stored


def vm_labels(w, name: str) -> dict:
    return w.dvp.peek(VIRTUAL_MACHINE, name, NS)["metadata"]["labels"]


PARENT_LEFT = (E.LB_NOT_OURS, "web", f'Service "shop/web": DVP Service "{LBN}" is not managed by this cluster and '
               f"stays in DVP with its address ({IP}); not deleted, the guest Service is released")


def vm_left(name: str) -> tuple[str, str, str]:
    return (E.LB_NOT_OURS, "web", f'Service "shop/web": DVP VirtualMachine "{name}" carries label "{KEY}" and is '
            "not managed by this cluster; left alone")


def test_deleting_a_guest_service_upstream_served_finishes_and_touches_nothing_foreign():
    w = world()
    parent = switched(w)
    u0, u1 = vm_labels(w, "u-0"), vm_labels(w, "u-1")
    assert ServiceController(w.ctx).reconcile("shop/web") == DONE  # no NotOurs out of the reconcile
    assert w.guest.peek(SERVICE, "web", "shop") is None  # the finalizer released: the deleting Service went
    assert w.guest_writes() == [("delete", "Service", "web"), ("patch", "Service", "web")]  # the test's, ours
    # only our VM loses the label; the foreign parent (read twice: judged, then what is left) and VMs stay as they are
    assert w.dvp.calls == [("get", "Service", LBN), ("patch", "VirtualMachine", "w-1"), ("get", "Service", LBN)]
    assert KEY not in vm_labels(w, "w-1")
    assert vm_labels(w, "u-0") == u0 and vm_labels(w, "u-1") == u1
    assert w.dvp.peek(SERVICE, LBN, NS) == parent
    assert w.events() == [vm_left("u-0"), vm_left("u-1"), PARENT_LEFT]
    assert not any(e[0] == E.DELETED_LB for e in w.events())


def test_a_foreign_parent_is_never_reported_deleted():
    w = world()
    parent = switched(w, upstream_vms=False)
    assert ServiceController(w.ctx).reconcile("shop/web") == DONE
    assert w.guest.peek(SERVICE, "web", "shop") is None
    assert w.dvp.writes() == [("patch", "VirtualMachine", "w-1")]
    assert w.dvp.peek(SERVICE, LBN, NS) == parent
    assert w.events() == [PARENT_LEFT]


def test_without_a_parent_the_deletion_is_reported_done():
    w = world()
    switched(w, parent=None)
    assert ServiceController(w.ctx).reconcile("shop/web") == DONE
    assert w.guest.peek(SERVICE, "web", "shop") is None
    assert w.dvp.writes() == [("patch", "VirtualMachine", "w-1")]
    assert w.events() == [vm_left("u-0"), vm_left("u-1"),
                          (E.DELETED_LB, "web", 'Service "shop/web": load balancer deleted')]


def test_our_parent_still_held_by_dvp_keeps_the_finalizer_until_it_is_gone():
    w = world()
    ours = copy.deepcopy(UPSTREAM_PARENT)
    ours["metadata"]["labels"] = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: UUID, L.COMPONENT: L.CCM}
    ours["metadata"]["finalizers"] = [LB.FINALIZER]  # DVP's load balancer still releasing the address
    switched(w, upstream_vms=False, parent=ours)
    c = ServiceController(w.ctx)
    first = c.reconcile("shop/web")
    assert isinstance(first, Result) and first.requeue_after and first != DONE
    assert w.guest.peek(SERVICE, "web", "shop")["metadata"]["finalizers"] == [LB.FINALIZER]
    assert w.dvp.writes() == [("delete", "Service", LBN), ("patch", "VirtualMachine", "w-1")]
    assert w.events() == []
    assert c.reconcile("shop/web") == first  # looked at again: no second DELETE
    assert w.dvp.writes() == [("delete", "Service", LBN), ("patch", "VirtualMachine", "w-1")]
    held = w.dvp.peek(SERVICE, LBN, NS)
    held["metadata"]["finalizers"] = []
    w.dvp.put(SERVICE, held)  # DVP released it
    w.dvp.remove(SERVICE, LBN, NS)
    assert c.reconcile("shop/web") == DONE
    assert w.guest.peek(SERVICE, "web", "shop") is None
    assert w.events() == [(E.DELETED_LB, "web", 'Service "shop/web": load balancer deleted')]


def test_a_filtered_service_never_relabels_a_foreign_vm():
    w = world()
    for i in range(2):
        w.dvp.put(VIRTUAL_MACHINE, vm(f"w-{i}", UUID, ip=f"10.66.0.{10 + i}"))
        w.guest.put(NODE, node(f"w-{i}", provider_id=f"dvp://w-{i}"))
    w.dvp.put(VIRTUAL_MACHINE, vm("u-0", UUID, component=None, extra_labels={KEY: "loadbalancer"}))
    svc = service("web", "shop", etp="Local", hc_port=32100)
    svc["metadata"]["uid"] = UID
    w.guest.put(SERVICE, svc)
    c = ServiceController(w.ctx)  # no prober: every eligible VM passes
    assert c.reconcile("shop/web") == DONE
    assert [op for op in w.dvp.writes() if op[1] == "VirtualMachine"] == [("patch", "VirtualMachine", "w-0"),
                                                                          ("patch", "VirtualMachine", "w-1")]
    assert vm_labels(w, "u-0")[KEY] == "loadbalancer"
    assert w.events() == [vm_left("u-0")]
    c.reconcile("shop/web")
    assert w.events() == [vm_left("u-0")]  # told once

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A cluster switched from the Go module (issue 46): the parent Service it made for a guest LoadBalancer Service
(`a<uid32>`, no labels, selector `{dvp.deckhouse.io/<name>: loadbalancer}`) is adopted with the guest Service as
proof and served as ours; another cluster's parent, or one no guest Service of this cluster names, is untouched."""

from __future__ import annotations

import copy

from ccm_builders import node, service, vm
from ccm_context import UUID, world
from dvp_ccm import lb_metrics
from dvp_ccm.controllers.service import BACKENDS, ServiceController
from dvp_ccm.domain import events as E
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.runner import DONE, Result
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import NODE, SERVICE
from informed_api import NS
from prometheus_client import CollectorRegistry

from testkit.upstream import parent as upstream_parent

UID = "0c1f2e3d-4b5a-6978-8a9b-acbdcedf0011"
LBN = "a0c1f2e3d4b5a69788a9bacbdcedf001"
KEY = L.LB_LABEL_PREFIX + LBN
IP = "192.0.2.7"
_SERVED = service("web", "shop", annotations={"example.com/copied": "x"}, externalTrafficPolicy="Cluster")
_SERVED["metadata"]["uid"] = UID
# as the Go module made it for that guest Service (testkit.upstream: `a<uid32>`, no labels, its annotations, the
# per-Service selector, NodePorts as targets), with the address DVP gave it
UPSTREAM_PARENT = {**upstream_parent.lb_service(_SERVED), "status": {"loadBalancer": {"ingress": [{"ip": IP}]}}}
UPSTREAM_PARENT["metadata"]["namespace"] = NS
assert UPSTREAM_PARENT["metadata"]["name"] == LBN and UPSTREAM_PARENT["spec"]["selector"] == {KEY: "loadbalancer"}


def switched(w, parent: dict | None = UPSTREAM_PARENT, uid: str = UID) -> tuple[dict | None, list[str]]:
    """Our node VM w-0, the Go module's u-0 (our UUID, no component label, per-Service label) behind Node u-0, the
    parent, and the guest Service the Go module served (its finalizer, no status yet). Returns the stored parent
    and the list the adoption counter appends to."""
    w.dvp.put(VIRTUAL_MACHINE, vm("w-0", UUID, ip="10.66.0.10"))
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0"))
    w.dvp.put(VIRTUAL_MACHINE, vm("u-0", UUID, component=None, ip="10.66.0.20", extra_labels={KEY: "loadbalancer"}))
    w.guest.put(NODE, node("u-0", provider_id="dvp://u-0"))
    stored = w.dvp.put(SERVICE, copy.deepcopy(parent)) if parent is not None else None
    svc = service("web", "shop")
    svc["metadata"].update(uid=uid, finalizers=[LB.FINALIZER])
    w.guest.put(SERVICE, svc)
    counted: list[str] = []
    w.ctx.adopted = counted.append
    return stored, counted


def test_upstream_parent_is_adopted_and_served_as_ours():
    w = world()
    _, counted = switched(w)
    upstream_vm = w.dvp.peek(VIRTUAL_MACHINE, "u-0", NS)
    c = ServiceController(w.ctx)
    # adopted, then its selector waits for the shared backend label on our VMs
    assert c.reconcile("shop/web") == Result(requeue_after=1.0)
    # served before (its finalizer) and nothing of ours in the cache: one live read, then the adoption (our
    # labels only while the selector waits), uid-guarded
    assert w.dvp.calls == [("get", "Service", LBN), ("patch", "Service", LBN)]
    assert counted == ["Service"]
    adopted = w.dvp.peek(SERVICE, LBN, NS)
    assert {k: adopted["metadata"]["labels"][k] for k in (L.CLUSTER_UUID, L.COMPONENT)} == {
        L.CLUSTER_UUID: UUID, L.COMPONENT: L.CCM}
    assert c.reconcile(BACKENDS) == DONE
    assert c.reconcile("shop/web") == DONE
    parent = w.dvp.peek(SERVICE, LBN, NS)
    assert parent["spec"]["selector"] == LB.shared_selector(UUID)
    assert parent["metadata"]["annotations"] == {LB.GUEST_SERVICE: "shop/web", LB.GUEST_SERVICE_UID: UID}
    assert parent["metadata"]["uid"] == adopted["metadata"]["uid"]  # the same object: its address stays
    assert w.guest.peek(SERVICE, "web", "shop")["status"]["loadBalancer"]["ingress"] == [{"ip": IP}]
    assert w.dvp.writes() == [("patch", "Service", LBN), ("patch", "VirtualMachine", "w-0"),
                              ("patch", "Service", LBN)]
    assert w.dvp.peek(VIRTUAL_MACHINE, "u-0", NS) == upstream_vm  # the Go module's VM is never written
    reasons = [e[0] for e in w.events()]
    assert reasons[0] == E.ADOPTED_LB and reasons[-1] == E.ENSURED_LB and E.LB_NOT_OURS not in reasons
    assert f'DVP Service "{LBN}"' in w.events()[0][2] and "Service shop/web of this cluster" in w.events()[0][2]


def test_another_clusters_same_named_parent_is_untouched():
    w = world()
    theirs = copy.deepcopy(UPSTREAM_PARENT)
    theirs["metadata"]["labels"] = {L.CLUSTER_UUID: "other-cluster-uuid"}
    stored, counted = switched(w, theirs)
    assert ServiceController(w.ctx).reconcile("shop/web") == Result(requeue_after=300.0)
    assert w.dvp.peek(SERVICE, LBN, NS) == stored
    assert w.dvp.writes() == [] and counted == []  # read, judged foreign, nothing made over it
    assert [e[0] for e in w.events()] == [E.LB_NOT_OURS]
    assert "status" not in w.guest.peek(SERVICE, "web", "shop") or not LB.ingress(w.guest.peek(SERVICE, "web", "shop"))


def test_another_components_parent_is_untouched():
    w = world()
    theirs = copy.deepcopy(UPSTREAM_PARENT)
    theirs["metadata"]["labels"] = {L.CLUSTER_UUID: UUID, L.COMPONENT: L.CSI}
    stored, counted = switched(w, theirs)
    assert ServiceController(w.ctx).reconcile("shop/web") == Result(requeue_after=300.0)
    assert w.dvp.peek(SERVICE, LBN, NS) == stored and counted == []
    assert w.dvp.writes() == []  # read, judged foreign


def test_parent_no_guest_service_of_this_cluster_names_is_untouched():
    w = world()
    other_uid = "11111111-2222-3333-4444-555555555555"
    stored, counted = switched(w, uid=other_uid)
    c = ServiceController(w.ctx)
    c.reconcile(BACKENDS)
    assert c.reconcile("shop/web") == DONE  # served by a parent of its own name
    assert w.dvp.peek(SERVICE, LBN, NS) == stored and counted == []
    assert w.dvp.peek(SERVICE, L.lb_name(other_uid), NS)["metadata"]["labels"][L.COMPONENT] == L.CCM
    assert E.ADOPTED_LB not in [e[0] for e in w.events()]


def test_domain_proof_needs_the_finalizer_and_the_name():
    svc = service("web", "shop")
    svc["metadata"].update(uid=UID)
    assert LB.adoption_proof(svc, LBN) is None  # no cleanup finalizer: not a load balancer we serve
    svc["metadata"]["finalizers"] = [LB.FINALIZER]
    proof = LB.adoption_proof(svc, LBN)
    assert proof is not None and proof.strong and str(proof) == "Service shop/web of this cluster (metadata.uid)"
    assert LB.adoption_proof(svc, "a" + "0" * 32) is None


def test_upstream_vm_named_by_no_node_stays_foreign_for_the_load_balancer():
    w = world()
    switched(w)
    w.guest.client.delete(NODE, "u-0")  # no Node of this cluster names u-0 any more
    upstream_vm = w.dvp.peek(VIRTUAL_MACHINE, "u-0", NS)
    c = ServiceController(w.ctx)
    c.reconcile(BACKENDS)
    c.reconcile("shop/web")
    assert c.reconcile("shop/web") == DONE
    assert w.dvp.peek(VIRTUAL_MACHINE, "u-0", NS) == upstream_vm
    assert any(e[0] == E.LB_NOT_OURS and '"u-0"' in e[2] for e in w.events())


def test_adoptions_counter():
    registry = CollectorRegistry()
    count = lb_metrics.adoptions(registry)
    count("Service")
    count("Service")
    assert registry.get_sample_value("dvp_ccm_adoptions_total", {"kind": "Service"}) == 2


def test_adopted_parent_keeps_the_go_modules_backends_until_ours_exist():
    """Only the Go module's node (u-0, this cluster's instance) is eligible: the adopted parent keeps selecting it,
    the guest Service gets the address; the switch to our selector waits for a VM of ours."""
    w = world()
    switched(w)
    w.guest.client.delete(NODE, "w-0")
    w.dvp.client.delete(VIRTUAL_MACHINE, "w-0", NS)
    c = ServiceController(w.ctx)
    assert c.reconcile(BACKENDS) == DONE
    assert c.reconcile("shop/web") == Result(requeue_after=30.0)
    parent = w.dvp.peek(SERVICE, LBN, NS)
    assert parent["metadata"]["labels"][L.COMPONENT] == L.CCM and parent["spec"]["selector"] == {KEY: "loadbalancer"}
    assert LB.ingress(w.guest.peek(SERVICE, "web", "shop")) == [{"ip": IP}]
    w.dvp.put(VIRTUAL_MACHINE, vm("w-1", UUID, ip="10.66.0.11"))
    w.guest.put(NODE, node("w-1", provider_id="dvp://w-1"))
    assert c.reconcile(BACKENDS) == DONE
    assert c.reconcile("shop/web") == DONE
    assert w.dvp.peek(SERVICE, LBN, NS)["spec"]["selector"] == LB.shared_selector(UUID)

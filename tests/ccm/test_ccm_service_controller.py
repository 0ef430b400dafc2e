# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

from ccm_builders import node, service, vm
from ccm_context import UUID, world
from ccm_fakes import NS
from dvp_ccm.controllers.service import ServiceController
from dvp_ccm.domain import events as E
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.runner import DONE, Result
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import NODE, SERVICE

UID = "0c1f2e3d-4b5a-6978-8a9b-acbdcedf0011"
LBN = "a0c1f2e3d4b5a69788a9bacbdcedf001"
KEY = L.LB_LABEL_PREFIX + LBN


def setup(w, **svc_kw):
    for i in range(3):
        w.dvp.put(VIRTUAL_MACHINE, vm(f"w-{i}", UUID, ip=f"10.66.0.{10 + i}"))
    w.dvp.put(VIRTUAL_MACHINE, vm("victim", "other-uuid"))
    w.guest.put(NODE, node("w-0", provider_id="dvp://w-0"))
    w.guest.put(NODE, node("w-1", provider_id="dvp://w-1"))
    w.guest.put(NODE, node("w-2", provider_id="dvp://w-2", labels={LB.EXCLUDE_LABEL: "true"}))
    w.guest.put(NODE, node("evil", provider_id="dvp://victim"))  # a Node pointing at a foreign VM
    svc = service("web", "shop", **svc_kw)
    svc["metadata"]["uid"] = UID
    w.guest.put(SERVICE, svc)


def labelled(w) -> set[str]:
    return {n for n in ("w-0", "w-1", "w-2", "victim")
            if KEY in w.dvp.obj(VIRTUAL_MACHINE, n, NS)["metadata"]["labels"]}


def test_ensure_creates_dvp_service_labels_our_eligible_vms_and_copies_ingress():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    assert c.reconcile("shop/web") == DONE
    assert w.guest_writes() == [("patch", "Service", "web")]
    assert w.guest.obj(SERVICE, "web", "shop")["metadata"]["finalizers"] == [LB.FINALIZER]
    assert w.dvp.writes() == [("create", "Service", LBN), ("patch", "VirtualMachine", "w-0"),
                                           ("patch", "VirtualMachine", "w-1")]
    dvp_svc = w.dvp.obj(SERVICE, LBN, NS)
    assert dvp_svc["spec"] == {"type": "LoadBalancer", "externalTrafficPolicy": "Cluster",
                               "selector": {KEY: "loadbalancer"},
                               "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080}]}
    assert dvp_svc["metadata"]["labels"] == {L.MANAGED_BY: "deckhouse", L.CLUSTER_UUID: UUID, L.COMPONENT: L.CCM}
    assert labelled(w) == {"w-0", "w-1"}
    # DVP assigns an address: the next pass copies it and writes nothing in DVP
    w.dvp.patch(SERVICE, LBN, {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}}, NS,
                subresource="status")
    before = len(w.dvp.writes())
    assert c.reconcile("shop/web") == DONE
    assert len(w.dvp.writes()) == before
    assert w.guest.obj(SERVICE, "web", "shop")["status"] == {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}
    assert (E.ENSURED_LB, "web", 'Service "shop/web": load balancer at 192.0.2.1') in w.events()
    c.reconcile("shop/web")
    assert len(w.guest_writes()) == 2  # finalizer, status: a steady state writes nothing


def test_node_set_changes_move_the_label():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    w.guest.patch(NODE, "w-1", {"metadata": {"labels": {LB.EXCLUDE_LABEL: ""}}})
    w.guest.patch(NODE, "w-2", {"metadata": {"labels": {LB.EXCLUDE_LABEL: None}}})
    c.reconcile("shop/web")
    assert labelled(w) == {"w-0", "w-2"}


def test_local_traffic_labels_only_nodes_passing_the_health_check():
    probed = []

    def prober(ip, port):
        probed.append((ip, port))
        return ip == "10.66.0.11"

    w = world(prober=prober)
    setup(w, etp="Local", hc_port=32100)
    ServiceController(w.ctx).reconcile("shop/web")
    assert sorted(probed) == [("10.66.0.10", 32100), ("10.66.0.11", 32100)]
    assert labelled(w) == {"w-1"}


def test_unsupported_service_is_an_event_and_nothing_else():
    w = world()
    setup(w, ports=[{"protocol": "SCTP", "port": 9, "nodePort": 30009}])
    assert ServiceController(w.ctx).reconcile("shop/web") == DONE
    assert w.guest_writes() == [] and w.dvp.writes() == []
    assert w.events() == [(E.UNSUPPORTED_SERVICE, "web",
                           'Service "shop/web": spec.ports[0].protocol SCTP is not supported (TCP, UDP)')]


def test_other_load_balancer_class_is_skipped():
    w = world()
    setup(w, lb_class="metallb.io/metallb")
    assert ServiceController(w.ctx).reconcile("shop/web") == DONE
    assert w.guest_writes() == [] and w.dvp.calls == []


def test_foreign_dvp_service_of_the_same_name_is_left_alone():
    w = world()
    setup(w)
    foreign = w.dvp.put(SERVICE, {"metadata": {"name": LBN, "namespace": NS, "labels": {L.CLUSTER_UUID: "x"}},
                                  "spec": {"type": "LoadBalancer", "selector": {"app": "theirs"}}})
    assert ServiceController(w.ctx).reconcile("shop/web") == Result(requeue_after=300.0)
    assert w.dvp.obj(SERVICE, LBN, NS) == foreign
    assert w.dvp.writes() == []
    assert labelled(w) == set()
    assert [e[0] for e in w.events()] == [E.LB_NOT_OURS]


def test_deletion_releases_everything_and_removes_the_finalizer_last():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    w.guest.patch(SERVICE, "web", {"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"}}, "shop")
    assert c.reconcile("shop/web") == DONE
    assert w.dvp.obj(SERVICE, LBN, NS) is None and labelled(w) == set()
    assert w.guest.obj(SERVICE, "web", "shop")["metadata"].get("finalizers") is None
    assert w.guest_writes()[-1] == ("patch", "Service", "web")
    assert [e[0] for e in w.events()][-1] == E.DELETED_LB


def test_type_change_cleans_up_and_clears_status():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    w.guest.patch(SERVICE, "web", {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}}, "shop",
                  subresource="status")
    w.guest.patch(SERVICE, "web", {"spec": {"type": "ClusterIP"}}, "shop")
    c.reconcile("shop/web")
    got = w.guest.obj(SERVICE, "web", "shop")
    assert "finalizers" not in got["metadata"] and got["status"] == {"loadBalancer": {}}
    assert w.dvp.obj(SERVICE, LBN, NS) is None


def test_orphaned_dvp_service_is_released_when_the_guest_service_is_gone():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    del w.guest.objects[("services", "shop", "web")]
    assert c.reconcile("shop/web") == DONE
    assert w.dvp.obj(SERVICE, LBN, NS) is None and labelled(w) == set()


def test_a_recreated_service_releases_the_load_balancer_of_its_predecessor():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    del w.guest.objects[("services", "shop", "web")]  # gone while the CCM was away (finalizer removed by hand)
    again = service("web", "shop")
    again["metadata"]["uid"] = "99999999-0000-0000-0000-000000000000"
    w.guest.put(SERVICE, again)
    c.reconcile("shop/web")
    assert w.dvp.obj(SERVICE, LBN, NS) is None
    new_key = L.lb_label_key(L.lb_name(again["metadata"]["uid"]))
    assert labelled(w) == set()
    assert {n for n in ("w-0", "w-1") if new_key in w.dvp.obj(VIRTUAL_MACHINE, n, NS)["metadata"]["labels"]} == \
        {"w-0", "w-1"}

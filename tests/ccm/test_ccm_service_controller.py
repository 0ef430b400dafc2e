# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

from ccm_builders import node, service, vm
from ccm_context import UUID, world
from dvp_ccm.controllers.service import BACKENDS, SWITCH_RECHECK, ServiceController
from dvp_ccm.domain import events as E
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.runner import DONE, Result
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import NODE, SERVICE
from informed_api import NS

UID = "0c1f2e3d-4b5a-6978-8a9b-acbdcedf0011"
LBN = "a0c1f2e3d4b5a69788a9bacbdcedf001"
KEY = L.LB_LABEL_PREFIX + LBN  # the Service's own label


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


def labelled(w, key: str = KEY) -> set[str]:
    return {n for n in ("w-0", "w-1", "w-2", "victim")
            if key in w.dvp.peek(VIRTUAL_MACHINE, n, NS)["metadata"]["labels"]}


def shared(w) -> set[str]:
    return labelled(w, L.LB_BACKEND)


def ensured(w) -> ServiceController:
    """The Service ensured, then the shared backends: what the queue runs after the Service's event."""
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    c.reconcile(BACKENDS)
    return c


def to_local(w) -> None:
    w.guest.client.patch(SERVICE, "web", {"spec": {"externalTrafficPolicy": "Local", "healthCheckNodePort": 32100}},
                         "shop")


def test_ensure_creates_dvp_service_selecting_the_shared_backends_and_copies_ingress():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    assert c.reconcile("shop/web") == DONE
    assert w.guest_writes() == [("patch", "Service", "web")]
    assert w.guest.peek(SERVICE, "web", "shop")["metadata"]["finalizers"] == [LB.FINALIZER]
    assert w.dvp.writes() == [("create", "Service", LBN)]
    dvp_svc = w.dvp.peek(SERVICE, LBN, NS)
    assert dvp_svc["spec"] == {"type": "LoadBalancer", "externalTrafficPolicy": "Cluster",
                               "selector": {L.CLUSTER_UUID: UUID, L.LB_BACKEND: "loadbalancer"},
                               "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080}]}
    assert dvp_svc["metadata"]["labels"] == {L.MANAGED_BY: "deckhouse", L.CLUSTER_UUID: UUID, L.COMPONENT: L.CCM}
    assert c.reconcile(BACKENDS) == DONE  # queued by the Service's event: the shared label on our eligible VMs
    assert w.dvp.writes()[1:] == [("patch", "VirtualMachine", "w-0"), ("patch", "VirtualMachine", "w-1")]
    assert shared(w) == {"w-0", "w-1"} and labelled(w) == set()
    # DVP assigns an address: the next pass copies it and writes nothing in DVP
    w.dvp.client.patch(SERVICE, LBN, {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}}, NS,
                       subresource="status")
    before = len(w.dvp.writes())
    assert c.reconcile("shop/web") == DONE and c.reconcile(BACKENDS) == DONE
    assert len(w.dvp.writes()) == before
    assert w.guest.peek(SERVICE, "web", "shop")["status"] == {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}
    assert (E.ENSURED_LB, "web", 'Service "shop/web": load balancer at 192.0.2.1') in w.events()
    c.reconcile("shop/web")
    assert len(w.guest_writes()) == 2  # finalizer, status: a steady state writes nothing


def test_many_services_share_one_label_per_vm():
    w = world()
    setup(w)
    for i in range(5):
        more = service(f"web-{i}", "shop")
        more["metadata"]["uid"] = f"0c1f2e3d-4b5a-6978-8a9b-acbdcedf01{i:02d}"
        w.guest.put(SERVICE, more)
    c = ServiceController(w.ctx)
    for name in ["web", *(f"web-{i}" for i in range(5))]:
        assert c.reconcile(f"shop/{name}") == DONE
    c.reconcile(BACKENDS)
    assert [op for op in w.dvp.writes() if op[1] == "VirtualMachine"] == [("patch", "VirtualMachine", "w-0"),
                                                                          ("patch", "VirtualMachine", "w-1")]
    assert w.dvp.peek(VIRTUAL_MACHINE, "w-0", NS)["metadata"]["labels"] == {
        **vm("w-0", UUID)["metadata"]["labels"], L.LB_BACKEND: "loadbalancer"}


def test_node_set_changes_move_the_shared_label():
    w = world()
    setup(w)
    c = ensured(w)
    w.guest.client.patch(NODE, "w-1", {"metadata": {"labels": {LB.EXCLUDE_LABEL: ""}}})
    w.guest.client.patch(NODE, "w-2", {"metadata": {"labels": {LB.EXCLUDE_LABEL: None}}})
    before = len(w.dvp.writes())
    c.reconcile(BACKENDS)
    assert sorted(w.dvp.writes()[before:]) == [("patch", "VirtualMachine", "w-1"), ("patch", "VirtualMachine", "w-2")]
    assert shared(w) == {"w-0", "w-2"}


def test_the_shared_label_goes_with_the_last_service_that_selects_it():
    w = world()
    setup(w)
    c = ensured(w)
    to_local(w)
    assert c.reconcile(BACKENDS) == DONE  # a filtering Service has its own label: the shared one selects nothing
    assert shared(w) == set()


def test_a_selector_switches_to_the_shared_backends_only_once_they_carry_the_label():
    w = world()  # a LoadBalancer made with its own label (by an earlier policy, or by an earlier release)
    setup(w, etp="Local", hc_port=32100)
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    assert labelled(w) == {"w-0", "w-1"} and w.dvp.peek(SERVICE, LBN, NS)["spec"]["selector"] == {KEY: "loadbalancer"}
    w.guest.client.patch(SERVICE, "web", {"spec": {"externalTrafficPolicy": "Cluster", "healthCheckNodePort": None}},
                  "shop")
    before = len(w.dvp.writes())
    assert c.reconcile("shop/web") == Result(requeue_after=SWITCH_RECHECK)
    assert w.dvp.writes()[before:] == []  # no shared label yet: the old selector stays
    c.reconcile(BACKENDS)
    assert c.reconcile("shop/web") == DONE
    assert w.dvp.writes()[before:] == [("patch", "VirtualMachine", "w-0"), ("patch", "VirtualMachine", "w-1"),
                                       ("patch", "Service", LBN),
                                       ("patch", "VirtualMachine", "w-0"), ("patch", "VirtualMachine", "w-1")]
    assert w.dvp.peek(SERVICE, LBN, NS)["spec"]["selector"] == LB.shared_selector(UUID)
    assert shared(w) == {"w-0", "w-1"} and labelled(w) == set()


def test_a_selector_switches_to_its_own_label_once_the_vms_carry_it():
    w = world()
    setup(w)
    c = ensured(w)
    to_local(w)
    before = len(w.dvp.writes())
    assert c.reconcile("shop/web") == DONE
    assert w.dvp.writes()[before:] == [("patch", "VirtualMachine", "w-0"), ("patch", "VirtualMachine", "w-1"),
                                       ("patch", "Service", LBN)]
    assert w.dvp.peek(SERVICE, LBN, NS)["spec"]["selector"] == {KEY: "loadbalancer"}


def test_local_traffic_labels_only_nodes_passing_the_health_check():
    probed = []

    def prober(ip, port):
        probed.append((ip, port))
        return ip == "10.66.0.11"

    w = world(prober=prober)
    setup(w, etp="Local", hc_port=32100)
    ensured(w)
    assert sorted(probed) == [("10.66.0.10", 32100), ("10.66.0.11", 32100)]
    assert labelled(w) == {"w-1"} and shared(w) == set()


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
    assert w.dvp.peek(SERVICE, LBN, NS) == foreign
    # AlreadyExists; read; not ours; read again to judge an adoption: another cluster's UUID, foreign
    assert w.dvp.calls == [("create", "Service", LBN), ("get", "Service", LBN), ("get", "Service", LBN)]
    assert labelled(w) == set()
    assert [e[0] for e in w.events()] == [E.LB_NOT_OURS]


def test_deletion_releases_everything_and_removes_the_finalizer_last():
    w = world()
    setup(w)
    c = ensured(w)
    w.guest.client.delete(SERVICE, "web", "shop")  # our finalizer keeps it, with its deletionTimestamp
    assert c.reconcile("shop/web") == DONE and c.reconcile(BACKENDS) == DONE
    assert w.dvp.peek(SERVICE, LBN, NS) is None and labelled(w) == set() and shared(w) == set()
    assert w.guest.peek(SERVICE, "web", "shop") is None  # the finalizer removed, the deleting Service went
    assert w.guest_writes()[-1] == ("patch", "Service", "web")
    assert [e[0] for e in w.events()][-1] == E.DELETED_LB


def test_type_change_cleans_up_and_clears_status():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    w.guest.client.patch(SERVICE, "web", {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}},
                         "shop", subresource="status")
    w.guest.client.patch(SERVICE, "web", {"spec": {"type": "ClusterIP"}}, "shop")
    c.reconcile("shop/web")
    got = w.guest.peek(SERVICE, "web", "shop")
    assert "finalizers" not in got["metadata"] and got["status"] == {"loadBalancer": {}}
    assert w.dvp.peek(SERVICE, LBN, NS) is None


def vanish(w):
    """The guest Service goes: its finalizer removed by hand, then deleted."""
    obj = w.guest.peek(SERVICE, "web", "shop")
    obj["metadata"].pop("finalizers", None)
    w.guest.put(SERVICE, obj)
    w.guest.remove(SERVICE, "web", "shop")


def test_orphaned_dvp_service_is_released_when_the_guest_service_is_gone():
    w = world()
    setup(w)
    c = ensured(w)
    vanish(w)
    assert c.reconcile("shop/web") == DONE and c.reconcile(BACKENDS) == DONE
    assert w.dvp.peek(SERVICE, LBN, NS) is None and labelled(w) == set() and shared(w) == set()


def test_a_recreated_service_releases_the_load_balancer_of_its_predecessor():
    w = world()
    setup(w)
    c = ServiceController(w.ctx)
    c.reconcile("shop/web")
    vanish(w)  # gone while the CCM was away
    again = service("web", "shop")
    again["metadata"]["uid"] = "99999999-0000-0000-0000-000000000000"
    w.guest.put(SERVICE, again)
    c.reconcile("shop/web")
    assert w.dvp.peek(SERVICE, LBN, NS) is None
    assert w.dvp.peek(SERVICE, L.lb_name(again["metadata"]["uid"]), NS)["spec"]["selector"] == \
        LB.shared_selector(UUID)

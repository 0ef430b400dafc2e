# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import pytest
from ccm_builders import UNINIT, node, service, vm
from dvp_ccm.domain import events as E
from dvp_ccm.domain import loadbalancer as LB
from dvp_ccm.domain import taints as T
from dvp_common.dvp import labels as L

UID = "0c1f2e3d-4b5a-6978-8a9b-acbdcedf0011"
CU = "11111111-2222-3333-4444-555555555555"  # our cluster UUID


def svc(**kw):
    s = service("web", "shop", **kw)
    s["metadata"]["uid"] = UID
    return s


def test_served_only_plain_load_balancers():
    assert LB.wants_lb(svc())
    assert not LB.wants_lb(svc(lb_class="example.com/other"))
    assert not LB.wants_lb(svc(svc_type="NodePort"))
    deleting = svc()
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert not LB.wants_lb(deleting)


def test_needs_cleanup_only_with_our_finalizer():
    s = svc(svc_type="ClusterIP")
    assert not LB.needs_cleanup(s)
    s["metadata"]["finalizers"] = [LB.FINALIZER]
    assert LB.needs_cleanup(s)


def test_desired_dvp_service():
    s = svc(ports=[{"name": "http", "protocol": "TCP", "port": 80, "nodePort": 30080},
                   {"protocol": "UDP", "port": 53, "nodePort": 30053}], etp="Local", hc_port=32000,
            loadBalancerIP="192.0.2.7", annotations={"metallb.universe.tf/address-pool": "p", "other/x": "y"})
    want = LB.desired(s, CU, ("metallb.universe.tf/",))
    assert want.name == "a0c1f2e3d4b5a69788a9bacbdcedf001"
    assert want.label_key == "dvp.deckhouse.io/a0c1f2e3d4b5a69788a9bacbdcedf001"
    assert want.spec == {"type": "LoadBalancer", "externalTrafficPolicy": "Local", "loadBalancerIP": "192.0.2.7",
                         "selector": {want.label_key: "loadbalancer"},
                         "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080},
                                   {"protocol": "UDP", "port": 53, "targetPort": 30053}]}
    assert want.annotations == {"metallb.universe.tf/address-pool": "p", LB.GUEST_SERVICE: "shop/web",
                                LB.GUEST_SERVICE_UID: UID}
    assert LB.desired(svc(), CU).annotations == {LB.GUEST_SERVICE: "shop/web", LB.GUEST_SERVICE_UID: UID}


def test_a_service_that_filters_no_node_selects_the_shared_backends():
    want = LB.desired(svc(), CU)
    assert want.shared and want.label_key == "dvp.deckhouse.io/a0c1f2e3d4b5a69788a9bacbdcedf001"
    assert want.spec["selector"] == {"dvp.deckhouse.io/cluster-uuid": CU,
                                     "dvp.deckhouse.io/load-balancer-backend": "loadbalancer"}
    assert LB.backends(svc()) == LB.SHARED and LB.backends(svc(etp="Local", hc_port=32000)) == LB.FILTERED
    assert LB.backends(svc(etp="Local")) == LB.SHARED  # no health check port: no node can be filtered
    assert not LB.desired(svc(etp="Local", hc_port=32000), CU).shared


def test_selector_changes_only_for_an_existing_object_that_selects_otherwise():
    shared, own = LB.desired(svc(), CU), LB.desired(svc(etp="Local", hc_port=32000), CU)
    assert not LB.selector_changes(None, shared)
    assert not LB.selector_changes({"spec": dict(shared.spec)}, shared)
    assert LB.selector_changes({"spec": dict(own.spec)}, shared)
    assert LB.selector_changes({"spec": dict(shared.spec)}, own)


@pytest.mark.parametrize(("kw", "message"), [
    ({"ports": []}, 'Service "shop/web": spec.ports is empty'),
    ({"ports": [{"protocol": "SCTP", "port": 1, "nodePort": 30001}]},
     'Service "shop/web": spec.ports[0].protocol SCTP is not supported (TCP, UDP)'),
    ({"ports": [{"protocol": "TCP", "port": 1}]}, 'Service "shop/web": spec.ports[0].nodePort is not set'),
    ({"externalIPs": ["10.0.0.1"]}, 'Service "shop/web": spec.externalIPs is not supported'),
])
def test_bad_services_are_refused_naming_the_field(kw, message):
    with pytest.raises(LB.BadService) as err:
        LB.desired(svc(**kw), CU)
    assert str(err.value).startswith(message)


def test_node_eligibility():
    assert LB.node_eligible(node("a", provider_id="dvp://a"))
    assert not LB.node_eligible(node("a"))  # not initialised yet
    assert not LB.node_eligible(node("a", provider_id="gce://p/z/a"))
    assert not LB.node_eligible(node("a", provider_id="dvp://a", labels={LB.EXCLUDE_LABEL: ""}))
    assert not LB.node_eligible(node("a", provider_id="dvp://a", taints=[UNINIT]))
    assert not LB.node_eligible(node("a", provider_id="dvp://a", taints=[{"key": T.TO_BE_DELETED,
                                                                          "effect": "NoSchedule"}]))


def test_local_traffic_and_spec_matches():
    assert LB.local_traffic(svc(etp="Local", hc_port=32000)) == 32000
    assert LB.local_traffic(svc(etp="Cluster", hc_port=32000)) is None
    want = LB.desired(svc(), CU)
    current = {"metadata": {"annotations": dict(want.annotations)},
               "spec": {**want.spec, "clusterIP": "10.1.1.1",
                        "ports": [{**p, "nodePort": 31111} for p in want.spec["ports"]]}}
    assert LB.spec_matches(current, want)
    current["spec"]["selector"] = {"x": "y"}
    assert not LB.spec_matches(current, want)
    assert not LB.spec_matches(None, want)


def test_healthchecks_add_one_tcp_probe_per_distinct_tcp_target_port():
    s = svc(ports=[{"name": "http", "protocol": "TCP", "port": 80, "nodePort": 30080},
                   {"name": "alt", "protocol": "TCP", "port": 8080, "nodePort": 30080},
                   {"name": "dns", "protocol": "UDP", "port": 53, "nodePort": 30053},
                   {"name": "tls", "protocol": "TCP", "port": 443, "nodePort": 30443}])
    want = LB.desired(s, CU, (), LB.Healthchecks(initial_delay=10, period=10, timeout=1))
    assert want.kind == LB.HEALTHCHECKS_KIND
    assert want.spec["healthcheck"] == {"initialDelaySeconds": 10, "periodSeconds": 10, "probes": [
        {"mode": "TCP", "timeoutSeconds": 1, "tcp": {"targetPort": 30080}},
        {"mode": "TCP", "timeoutSeconds": 1, "tcp": {"targetPort": 30443}}]}
    assert LB.desired(s, CU).kind == LB.SERVICE_KIND and "healthcheck" not in LB.desired(s, CU).spec
    udp_only = svc(ports=[{"protocol": "UDP", "port": 53, "nodePort": 30053}])
    assert LB.desired(udp_only, CU, (), LB.Healthchecks()).kind == LB.SERVICE_KIND  # no TCP probe could pass


def test_the_address_of_the_guest_service_is_asked_for_when_the_parent_object_is_made_anew():
    s = svc()
    s["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.9"}]}}
    want = LB.desired(s, CU)
    assert want.keep_ip == "192.0.2.9" and "loadBalancerIP" not in want.spec
    assert want.create_spec()["loadBalancerIP"] == "192.0.2.9"
    current = {"metadata": {"annotations": dict(want.annotations)}, "spec": dict(want.spec)}
    assert LB.spec_matches(current, want)  # made before it had an address: no write for the pin
    current["spec"]["loadBalancerIP"] = "192.0.2.9"
    assert LB.spec_matches(current, want)
    current["spec"]["loadBalancerIP"] = "192.0.2.10"
    assert not LB.spec_matches(current, want)
    asked = svc(loadBalancerIP="192.0.2.50")
    asked["status"] = s["status"]
    assert LB.desired(asked, CU).create_spec()["loadBalancerIP"] == "192.0.2.50"  # the guest's own ask wins


def parent(labels: dict | None = None, ip: str = "") -> dict:
    obj: dict = {"metadata": {"name": "a1", "labels": labels or {}}}
    if ip:
        obj["status"] = {"loadBalancer": {"ingress": [{"ip": ip}]}}
    return obj


OURS = {L.CLUSTER_UUID: CU, L.COMPONENT: L.CCM, L.MANAGED_BY: L.MANAGED_BY_VALUE}


def test_a_release_is_done_when_nothing_is_left():
    out = LB.release_outcome("shop/web", "a1", [], CU, 5.0)
    assert out == LB.Release(True, None, [(E.NORMAL, E.DELETED_LB, 'Service "shop/web": load balancer deleted')])


def test_a_release_waits_while_our_parent_object_is_still_there():
    for remaining in ([(LB.SERVICE_KIND, parent(OURS))],
                      [(LB.HEALTHCHECKS_KIND, parent(OURS)), (LB.SERVICE_KIND, parent({L.CLUSTER_UUID: "x"}))]):
        assert LB.release_outcome("shop/web", "a1", remaining, CU, 5.0) == LB.Release(False, 5.0, [])


def test_a_release_leaving_only_foreign_parents_is_done_with_a_warning_naming_each():
    upstream = parent(ip="192.0.2.7")  # the Go module's: no labels
    out = LB.release_outcome("shop/web", "a1", [(LB.HEALTHCHECKS_KIND, parent({L.CLUSTER_UUID: CU})),
                                                (LB.SERVICE_KIND, upstream)], CU, 5.0)
    assert out.done and out.requeue_after is None
    assert out.events == [
        (E.WARNING, E.LB_NOT_OURS, 'Service "shop/web": DVP ServiceWithHealthchecks "a1" is not managed by this '
                                   "cluster and stays in DVP with its address (none); not deleted, the guest Service "
                                   "is released"),
        (E.WARNING, E.LB_NOT_OURS, 'Service "shop/web": DVP Service "a1" is not managed by this cluster and stays in '
                                   "DVP with its address (192.0.2.7); not deleted, the guest Service is released")]


def test_labels_change_only_on_our_vms():
    ours = vm("w-0", CU)
    theirs = [vm("u-0", CU, component=None), vm("x-0", "other-uuid"), vm("c-0", CU, component=L.CCM)]
    assert LB.split_vms([theirs[0], ours, *theirs[1:]], CU) == ([ours], ["c-0", "u-0", "x-0"])

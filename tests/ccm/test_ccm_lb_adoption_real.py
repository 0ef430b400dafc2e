# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Issue 46 on real kube-apiservers: the parent Service the Go module made for a guest LoadBalancer Service (same
name, no labels, selector on its per-Service VM label) is adopted and served as ours; its address reaches the guest
Service; the Go module's VM is never written."""

from __future__ import annotations

import pytest
from ccm_lb_real import PORTS
from ccm_real import Env, eventually
from dvp_ccm.domain import loadbalancer as LB
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube.resources import EVENT, SERVICE


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


def test_the_go_modules_parent_is_adopted_and_serves_the_guest_service(env):
    svc = env.guest.create(SERVICE, {"metadata": {"name": "web", "finalizers": [LB.FINALIZER]}, "spec": {
        "type": "LoadBalancer", "selector": {"app": "web"}, "ports": PORTS}}, env.guest_ns)
    lb_name = L.lb_name(svc["metadata"]["uid"])
    key = L.lb_label_key(lb_name)
    env.vm("mine")
    env.node("mine", provider_id="dvp://mine", taints=[])
    env.vm("up0", component=None, extra={key: "loadbalancer"})  # our cluster UUID, no component label
    env.dvp.create(DVP_SERVICE, {"metadata": {"name": lb_name, "annotations": {"example.com/copied": "x"}}, "spec": {
        "type": "LoadBalancer", "selector": {key: "loadbalancer"},
        "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080}]}}, env.ns)
    parent = eventually(lambda: (got := env.dvp.get(DVP_SERVICE, lb_name, env.ns)).get("status", {}).get(
        "loadBalancer", {}).get("ingress") and got, what="the parent's address (DVP's load balancer)")
    up0 = env.vm_labels("up0")
    env.manager(controllers=frozenset({"service-lb-controller"}))
    after = eventually(lambda: (got := env.dvp.get(DVP_SERVICE, lb_name, env.ns))["spec"]["selector"] ==
                       LB.shared_selector(env.uuid) and got, what="the adopted parent reconciled as ours")
    assert after["metadata"]["uid"] == parent["metadata"]["uid"]
    assert after["metadata"]["labels"][L.COMPONENT] == L.CCM and after["metadata"]["labels"][L.CLUSTER_UUID] == env.uuid
    assert after["metadata"]["annotations"] == {LB.GUEST_SERVICE: f"{env.guest_ns}/web",
                                                LB.GUEST_SERVICE_UID: svc["metadata"]["uid"]}
    eventually(lambda: LB.ingress(env.guest.get(SERVICE, "web", env.guest_ns)) == LB.ingress(parent),
               what="the parent's address on the guest Service")
    assert env.vm_labels("mine").get(L.LB_BACKEND) == L.LB_LABEL_VALUE
    assert env.vm_labels("up0") == up0
    assert env.dvp.get(VIRTUAL_MACHINE, "up0", env.ns)["metadata"]["labels"] == up0
    reasons = [e["reason"] for e in env.guest.list(EVENT, env.guest_ns).items if e["involvedObject"]["name"] == "web"]
    assert "AdoptedLoadBalancer" in reasons, reasons

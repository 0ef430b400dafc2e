# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Issue 46 on real kube-apiservers: a guest Service the Go module served (its parent Service: same name, no
labels, selector on its per-Service VM label; a VM of the Go module's nodes carrying it) is deleted; the CCM
finishes, changes nothing foreign and says the parent stays."""

from __future__ import annotations

import pytest
from ccm_lb_real import PORTS
from ccm_real import Env, eventually
from dvp_ccm.domain.loadbalancer import FINALIZER
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube import get_or_none
from dvp_common.kube.resources import EVENT, SERVICE


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


def test_a_guest_service_the_go_module_served_is_deleted_and_its_parent_left_alone(env):
    # the Go module served it (its finalizer); the uid first: names derive from it
    svc = env.guest.create(SERVICE, {"metadata": {"name": "web", "finalizers": [FINALIZER]}, "spec": {
        "type": "LoadBalancer", "selector": {"app": "web"}, "ports": PORTS}}, env.guest_ns)
    lb_name = L.lb_name(svc["metadata"]["uid"])
    key = L.lb_label_key(lb_name)
    env.vm("mine")
    env.node("mine", provider_id="dvp://mine", taints=[])
    env.vm("up0", component=None, extra={key: "loadbalancer"})  # our cluster UUID, no component: not ours
    env.node("up0", provider_id="dvp://up0", taints=[])
    env.dvp.create(DVP_SERVICE, {"metadata": {"name": lb_name}, "spec": {
        "type": "LoadBalancer", "selector": {key: "loadbalancer"},
        "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080}]}}, env.ns)
    parent = eventually(lambda: (got := env.dvp.get(DVP_SERVICE, lb_name, env.ns)).get("status", {}).get(
        "loadBalancer", {}).get("ingress") and got, what="the parent's address (DVP's load balancer)")
    up0 = env.dvp.get(VIRTUAL_MACHINE, "up0", env.ns)["metadata"]["labels"]
    # deleted during the switch, before this CCM served it: a release only (a served one is adopted, see
    # test_ccm_lb_adoption_real.py)
    env.guest.delete(SERVICE, "web", env.guest_ns)
    env.manager(controllers=frozenset({"service-lb-controller"}))
    eventually(lambda: get_or_none(env.guest, SERVICE, "web", env.guest_ns) is None, what="guest Service released")
    after = env.dvp.get(DVP_SERVICE, lb_name, env.ns)
    assert after["metadata"]["resourceVersion"] == parent["metadata"]["resourceVersion"]  # no write at all
    assert env.vm_labels("up0") == up0
    messages = [(e["type"], e["reason"], e["message"]) for e in env.guest.list(EVENT, env.guest_ns).items
                if e["involvedObject"]["name"] == "web"]
    assert not any(r == "DeletedLoadBalancer" for _, r, _ in messages)
    assert any(t == "Warning" and r == "LoadBalancerNotOurs" and f'DVP Service "{lb_name}"' in m
               and "stays in DVP" in m for t, r, m in messages), messages
    assert any('VirtualMachine "up0"' in m for _, _, m in messages), messages

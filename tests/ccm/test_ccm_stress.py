# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the CCM does holds under DVP faults: 20 % of its DVP requests answered 5xx, watches dropped, and a re-list
that briefly misses a VM. No Node whose VM exists is deleted, no LoadBalancer of another class or cluster is
touched, and a VM really gone still gets its Node tainted out-of-service and deleted. Real APIs, simulated DVP."""

from __future__ import annotations

import pytest
from ccm_real import Env, eventually, now_text
from dvp_ccm.domain import taints as T
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE as DVP_SERVICE
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube import RandomFaults
from dvp_common.kube.resources import SERVICE


@pytest.fixture
def env(dvp_api, guest_api):
    e = Env(dvp_api, guest_api)
    yield e
    e.close()


def test_faults_dropped_watches_and_a_relist_missing_a_vm_delete_no_node_and_touch_no_foreign_lb(env):
    for vm in ("keep", "gone", "lb"):
        env.vm(vm)
    keep = env.node("keep", provider_id="dvp://keep", taints=[])
    gone = env.node("gone", provider_id="dvp://gone", taints=[])
    env.node("lb", provider_id="dvp://lb", taints=[])
    foreign = env.dvp.create(DVP_SERVICE, {"metadata": {"name": "theirs", "labels": {
        L.CLUSTER_UUID: "another-cluster", L.COMPONENT: L.CCM}}, "spec": {
        "type": "LoadBalancer", "ports": [{"port": 80, "targetPort": 30080}]}}, env.ns)
    foreign = eventually(lambda: (o := env.dvp.get(DVP_SERVICE, "theirs", env.ns)).get("status", {}).get(
        "loadBalancer", {}).get("ingress") and o, what="the foreign LB's address (the simulator's last write)")
    other_class = env.guest.create(SERVICE, {"metadata": {"name": "other"}, "spec": {
        "type": "LoadBalancer", "loadBalancerClass": "example.com/lb", "ports": [{"port": 80}]}}, env.guest_ns)
    faults = RandomFaults(rate=0.2, statuses=(500, 503), watch_drop_rate=0.5, seed=7)
    m = env.manager(dvp_faults=faults, load_balancer_kind="auto")
    ours = env.guest.create(SERVICE, {"metadata": {"name": "web"}, "spec": {
        "type": "LoadBalancer", "ports": [{"port": 80}]}}, env.guest_ns)
    eventually(lambda: (env.guest.get(SERVICE, "web", env.guest_ns).get("status") or {}).get("loadBalancer", {})
               .get("ingress"), what="our LoadBalancer ensured through the faults")
    eventually(lambda: m.leading.is_set(), what="controllers running")
    # the kubelets of two nodes stop; one VM is really deleted, the other a re-list briefly misses
    env.set_ready(keep, False, since=now_text(-600))
    env.set_ready(gone, False, since=now_text(-600))
    env.dvp.delete(VIRTUAL_MACHINE, "gone", env.ns)
    kept_vm = env.dvp.get(VIRTUAL_MACHINE, "keep", env.ns)
    m.vms._apply("DELETED", kept_vm)  # the informer's own path for a re-list that did not return the VM
    eventually(lambda: T.has(env.get_node(gone), T.OUT_OF_SERVICE), what="the gone VM's Node tainted")
    eventually(lambda: env.get_node(gone) is None, what="the gone VM's Node deleted")
    assert env.get_node(keep) is not None and not T.has(env.get_node(keep), T.OUT_OF_SERVICE)
    assert faults.injected > 0
    after = env.dvp.get(DVP_SERVICE, "theirs", env.ns)
    assert after["metadata"]["resourceVersion"] == foreign["metadata"]["resourceVersion"]
    other = env.guest.get(SERVICE, "other", env.guest_ns)
    assert other["metadata"]["resourceVersion"] == other_class["metadata"]["resourceVersion"]
    assert "finalizers" not in other["metadata"]
    mine = {L.CLUSTER_UUID: env.uuid, L.COMPONENT: L.CCM}
    names = [o["metadata"]["name"] for o in env.dvp.list(DVP_SERVICE, env.ns, label_selector=mine).items]
    assert names == [L.lb_name(ours["metadata"]["uid"])]  # one LB of ours, no duplicate under the faults

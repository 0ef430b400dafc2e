# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Cluster teardown takes the cluster's DVP load balancers with it, by the ownership rule only: every Service and
ServiceWithHealthchecks this cluster's CCM made goes (a ServiceWithHealthchecks' child Service through DVP's
garbage collector); another cluster's and a hand-made one in the same project are not touched. Real APIs, with
the simulator playing DVP's controllers."""

from __future__ import annotations

import time

import pytest
from capdvp import resources as r
from capdvp.controllers.context import DONE
from dvp_common.dvp import DVPConnection, Services, ServicesWithHealthchecks
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import SERVICE_WITH_HEALTHCHECKS as SWHC
from dvp_common.kube.resources import SERVICE

from sim import SimConfig, Simulator
from testkit.capdvp.real import RealEnv

PORTS = [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 30080}]
LB = {"type": "LoadBalancer", "ports": PORTS, "selector": {"dvp.deckhouse.io/x": "loadbalancer"}}
HEALTHCHECK = {"periodSeconds": 10, "probes": [{"mode": "TCP", "tcp": {"targetPort": 30080}}]}


@pytest.fixture
def envs(dvp_api, guest_api):
    ours = RealEnv(dvp_api, guest_api)
    theirs = RealEnv(dvp_api, guest_api, share_dvp=ours)  # another cluster in the same DVP project
    sim = Simulator(dvp_api.client(), SimConfig(namespace=ours.dvp_ns, watch_timeout=1, default_latency=0.02))
    sim.start()
    yield ours, theirs
    sim.stop()
    sim.client.close()
    ours.close()
    theirs.close()


def ccm_of(env: RealEnv) -> DVPConnection:
    return DVPConnection(env.dvp, env.dvp_ns, env.uuid)


def until(check, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_teardown_removes_only_this_clusters_load_balancers(envs):
    ours, theirs = envs
    # what each cluster's CCM makes, through the CCM's own typed kinds
    Services(ccm_of(ours), L.CCM).ensure("aplain", LB)
    ServicesWithHealthchecks(ccm_of(ours), L.CCM).ensure("achecked", {**LB, "healthcheck": HEALTHCHECK})
    until(lambda: ours.dvp.list(SERVICE, ours.dvp_ns, label_selector={"dvp.deckhouse.io/cluster-uuid": ours.uuid})
          .items and len(ours.names(SERVICE)) == 2, "the child Service of our ServiceWithHealthchecks")
    Services(ccm_of(theirs), L.CCM).ensure("bplain", LB)
    foreign_checked = ServicesWithHealthchecks(ccm_of(theirs), L.CCM).ensure("bchecked",
                                                                             {**LB, "healthcheck": HEALTHCHECK})
    ours.dvp.create(SERVICE, {"metadata": {"name": "by-hand"}, "spec": LB}, ours.dvp_ns)
    ours.dvp.create(SERVICE, {"metadata": {"name": "not-ccm", "labels": {
        L.CLUSTER_UUID: ours.uuid, L.COMPONENT: L.CSI}}, "spec": LB}, ours.dvp_ns)  # ours, but not a CCM LB
    untouched = ("bplain", "by-hand", "not-ccm")  # their versions once the simulator gave each its address
    until(lambda: all((ours.dvp.get(SERVICE, n, ours.dvp_ns).get("status") or {}).get("loadBalancer", {}).get(
        "ingress") for n in untouched), "addresses of the Services that must survive")
    before = {n: ours.dvp.get(SERVICE, n, ours.dvp_ns)["metadata"]["resourceVersion"] for n in untouched}
    ours.guest.create(r.DECKHOUSE_CLUSTER, {"metadata": {"name": "dvp"}, "spec": {}}, ours.ns)
    assert ours.clusters.reconcile(ours.ns, "dvp") == DONE  # the finalizer
    ours.guest.delete(r.DECKHOUSE_CLUSTER, "dvp", ours.ns)
    until(lambda: ours.clusters.reconcile(ours.ns, "dvp") == DONE and not ours.guest.list(
        r.DECKHOUSE_CLUSTER, ours.ns).items, "the DeckhouseCluster released", timeout=60)
    mine = {L.CLUSTER_UUID: ours.uuid, L.COMPONENT: L.CCM}
    assert ours.dvp.list(SERVICE, ours.dvp_ns, label_selector=mine).items == []
    assert ours.dvp.list(SWHC, ours.dvp_ns, label_selector=mine).items == []
    left = {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in ours.dvp.list(SERVICE, ours.dvp_ns).items}
    assert left.pop("bchecked")  # the other cluster's child Service, made by DVP
    assert left == before
    assert [o["metadata"]["uid"] for o in ours.dvp.list(SWHC, ours.dvp_ns).items] == [
        foreign_checked["metadata"]["uid"]]

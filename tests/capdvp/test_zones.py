# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Failure domains: DeckhouseCluster spec.zones published as status.failureDomains; Machine.spec.failureDomain as
the VM's zone node selector; machines of one MachineDeployment without one spread over the zones."""

from __future__ import annotations

import pytest
from capdvp import resources as r
from capdvp.controllers.context import Result
from capdvp.domain import zones

from testkit.capdvp.world import CLUSTER, MACHINE_SPEC, NS

ZONES = ("zone-a", "zone-b", "zone-c")
MD_LABEL = "cluster.x-k8s.io/deployment-name"


@pytest.mark.parametrize(("me", "requested", "decided", "undecided", "expected"), [
    ("m-1", "zone-b", {}, (), zones.Decision("zone-b")),
    ("m-1", "", {}, (), zones.Decision("zone-a")),
    ("m-1", "", {"m-2": "zone-a"}, (), zones.Decision("zone-b")),
    ("m-3", "", {"m-1": "zone-a", "m-2": "zone-b"}, (), zones.Decision("zone-c")),
    # undecided siblings take turns in name order: each of them computes the same spread
    ("m-2", "", {}, ("m-1", "m-3"), zones.Decision("zone-b")),
    ("m-3", "", {}, ("m-1", "m-2"), zones.Decision("zone-c")),
    ("m-4", "", {"m-1": "zone-a", "m-2": "zone-b", "m-3": "zone-c"}, (), zones.Decision("zone-a")),
    ("m-1", "", {"m-1": "zone-c"}, (), zones.Decision("zone-a")),  # its own old record is not counted
    ("m-1", "zone-x", {}, (), zones.Decision(error=(
        "failure domain 'zone-x' is not one of the cluster's zones (zone-a, zone-b, zone-c); fix Machine "
        "spec.failureDomain or nodes.parameters.zones"))),
])
def test_decide(me, requested, decided, undecided, expected):
    assert zones.decide(me, requested, ZONES, decided, undecided) == expected


def test_without_zones_nothing_is_placed_whatever_the_machine_asks():
    assert zones.decide("m-1", "default", (), {}, ()) == zones.Decision()


def deckhouse_cluster(world, zone_list=ZONES):
    world.guest.put(r.DECKHOUSE_CLUSTER, {"metadata": {"name": CLUSTER, "ownerReferences": [
        {"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "name": CLUSTER, "uid": "u"}]},
        "spec": {"zones": list(zone_list)}}, NS)


def machine(world, name, failure_domain="", deployment="worker"):
    world.capi_machine(name)
    m = world.guest.peek(r.MACHINE, name, NS)
    m["metadata"]["labels"][MD_LABEL] = deployment
    if failure_domain:
        m["spec"]["failureDomain"] = failure_domain
    world.guest.put(r.MACHINE, m, NS)


def test_the_clusters_zones_are_published_as_v1beta2_failure_domains(world):
    deckhouse_cluster(world)
    world.clusters.reconcile(NS, CLUSTER)
    status = world.guest.peek(r.DECKHOUSE_CLUSTER, CLUSTER, NS)["status"]
    assert status["failureDomains"] == [{"name": "zone-a", "controlPlane": True},
                                        {"name": "zone-b", "controlPlane": True},
                                        {"name": "zone-c", "controlPlane": True}]
    deckhouse_cluster(world, ())
    world.clusters.reconcile(NS, CLUSTER)
    assert "failureDomains" not in world.guest.peek(r.DECKHOUSE_CLUSTER, CLUSTER, NS)["status"]


def test_a_machines_failure_domain_is_its_vms_zone(world):
    deckhouse_cluster(world)
    machine(world, "w-1", "zone-b")
    world.reconcile("w-1")
    assert world.vm("w-1")["spec"]["nodeSelector"] == {"topology.kubernetes.io/zone": "zone-b"}
    assert world.dm("w-1")["status"]["failureDomain"] == "zone-b"


def test_the_failure_domain_wins_over_a_zone_in_the_class_node_selector(world):
    deckhouse_cluster(world)
    world.capi_machine("w-2", {**MACHINE_SPEC, "nodeSelector": {"topology.kubernetes.io/zone": "zone-a",
                                                                 "disk": "ssd"}})
    m = world.guest.peek(r.MACHINE, "w-2", NS)
    m["spec"]["failureDomain"] = "zone-c"
    world.guest.put(r.MACHINE, m, NS)
    world.reconcile("w-2")
    assert world.vm("w-2")["spec"]["nodeSelector"] == {"topology.kubernetes.io/zone": "zone-c", "disk": "ssd"}


def test_machines_of_one_deployment_without_a_failure_domain_spread_one_per_zone(world):
    deckhouse_cluster(world)
    for name in ("w-1", "w-2", "w-3"):
        machine(world, name)
    for name in ("w-3", "w-1", "w-2"):  # any order: undecided siblings take turns by name
        world.reconcile(name)
    placed = {n: world.vm(n)["spec"]["nodeSelector"]["topology.kubernetes.io/zone"] for n in ("w-1", "w-2", "w-3")}
    assert placed == {"w-1": "zone-a", "w-2": "zone-b", "w-3": "zone-c"}
    assert {n: world.dm(n)["status"]["failureDomain"] for n in placed} == placed
    machine(world, "w-4")
    world.reconcile("w-4")
    assert world.dm("w-4")["status"]["failureDomain"] == "zone-a"
    machine(world, "other-1", deployment="other")  # another deployment spreads on its own
    world.reconcile("other-1")
    assert world.dm("other-1")["status"]["failureDomain"] == "zone-a"


def test_an_unknown_failure_domain_creates_nothing_and_says_why(world):
    deckhouse_cluster(world)
    machine(world, "w-1", "zone-x")
    assert world.reconcile("w-1") == Result(requeue_after=30.0)
    assert world.vm("w-1") is None and world.dvp.writes() == []
    ready = world.condition("w-1")
    assert (ready["status"], ready["reason"]) == ("False", "FailureDomainNotFound")
    assert ready["message"] == (
        f"DeckhouseMachine {NS}/w-1: failure domain 'zone-x' is not one of the cluster's zones (zone-a, zone-b, "
        "zone-c); fix Machine spec.failureDomain or nodes.parameters.zones")


def test_without_cluster_zones_a_failure_domain_is_not_placed(world):
    deckhouse_cluster(world, ())
    machine(world, "w-1", "default")
    world.reconcile("w-1")
    assert "nodeSelector" not in world.vm("w-1")["spec"]
    assert "failureDomain" not in world.dm("w-1")["status"]

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DeckhouseCluster: endpoint, provisioned, and the labelled clean-up on delete."""

from __future__ import annotations

from capdvp import resources as r
from capdvp.controllers.cluster import FINALIZER
from capdvp.controllers.context import DONE, Result

from testkit.capdvp.world import DVP_NS, NS, OTHER_UUID, UUID


def deckhouse_cluster(world):
    world.guest.put(r.DECKHOUSE_CLUSTER, {"metadata": {"name": "dvp", "ownerReferences": [
        {"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "name": "dvp", "uid": "u"}]}, "spec": {}}, NS)


def test_sets_finalizer_endpoint_and_provisioned(world):
    deckhouse_cluster(world)
    assert world.clusters.reconcile(NS, "dvp") == DONE
    dc = world.guest.peek(r.DECKHOUSE_CLUSTER, "dvp", NS)
    assert dc["metadata"]["finalizers"] == [FINALIZER]
    assert dc["spec"]["controlPlaneEndpoint"] == {"host": "10.0.0.1", "port": 6443}
    assert dc["status"]["initialization"] == {"provisioned": True}
    assert dc["status"]["ready"] is True
    writes = world.guest.writes()
    world.clusters.reconcile(NS, "dvp")
    assert world.guest.writes() == writes


def test_explicit_endpoint_is_kept(world):
    deckhouse_cluster(world)
    world.guest.client.patch(r.DECKHOUSE_CLUSTER, "dvp", {"spec": {"controlPlaneEndpoint": {"host": "api.example",
                                                                                    "port": 443}}}, NS)
    world.clusters.reconcile(NS, "dvp")
    assert world.guest.peek(r.DECKHOUSE_CLUSTER, "dvp", NS)["spec"]["controlPlaneEndpoint"] == {
        "host": "api.example", "port": 443}


def test_delete_cleans_up_only_capdvp_objects_of_this_cluster(world):
    deckhouse_cluster(world)
    world.clusters.reconcile(NS, "dvp")
    world.capi_machine("w-1")
    world.reconcile("w-1")
    keep = {
        "pvc-1": {"dvp.deckhouse.io/cluster-uuid": UUID, "dvp.deckhouse.io/component": "csi"},
        "other-boot": {"dvp.deckhouse.io/cluster-uuid": OTHER_UUID, "dvp.deckhouse.io/component": "capdvp"},
        "by-hand": {},
    }
    for name, labels in keep.items():
        world.dvp.put(r.VIRTUAL_DISK, {"metadata": {"name": name, "labels": labels}}, DVP_NS)
    world.guest.client.delete(r.DECKHOUSE_CLUSTER, "dvp", NS)
    assert world.clusters.reconcile(NS, "dvp") == Result(requeue_after=5.0)
    assert world.clusters.reconcile(NS, "dvp") == DONE
    assert world.guest.peek(r.DECKHOUSE_CLUSTER, "dvp", NS) is None
    assert world.names(r.VIRTUAL_DISK) == ["by-hand", "other-boot", "pvc-1"]
    assert world.names(r.VIRTUAL_MACHINE) == [] and world.names(r.SECRET) == []


def test_delete_is_bounded(world):
    deckhouse_cluster(world)
    world.clusters.reconcile(NS, "dvp")
    world.capi_machine("w-1")
    world.reconcile("w-1")
    vm = world.dvp.peek(r.VIRTUAL_MACHINE, "w-1", DVP_NS)
    vm["metadata"]["finalizers"] = ["virtualization.deckhouse.io/protection"]
    world.dvp.put(r.VIRTUAL_MACHINE, vm)
    world.guest.client.delete(r.DECKHOUSE_CLUSTER, "dvp", NS)
    assert world.clusters.reconcile(NS, "dvp") == Result(requeue_after=5.0)
    world.clock.advance(901)
    assert world.clusters.reconcile(NS, "dvp") == DONE
    assert world.guest.peek(r.DECKHOUSE_CLUSTER, "dvp", NS) is None

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A release read from a cache a moment behind: the object already went with our finalizer, so nothing is left to do.

Found with the real CAPI controller (test_capi_core_real): CAPI deletes DeckhouseMachines and the DeckhouseCluster,
capdvp lifts the finalizer, and an event still queued for the object is reconciled from the informer's copy taken
before (deleting, finalizer on). Removing the finalizer again answered 404, which was logged as a failure and
retried with backoff instead of ending the reconcile.
"""

from __future__ import annotations

import copy

from capdvp import resources as r
from capdvp.controllers.cluster import ClusterReconciler
from capdvp.controllers.context import DONE, Context
from capdvp.controllers.machine import MachineReconciler
from dvp_common.kube import Resource

from testkit.capdvp.world import NS


class StaleReads:
    """The guest API with one object answered from a snapshot, as an informer cache that has not seen it go."""

    def __init__(self, api, res: Resource, snapshot: dict) -> None:
        self.api, self.res, self.snapshot = api, res, snapshot

    def get(self, res: Resource, name: str, namespace: str | None = None, subresource: str | None = None) -> dict:
        if res == self.res and name == self.snapshot["metadata"]["name"] and subresource is None:
            return copy.deepcopy(self.snapshot)
        return self.api.get(res, name, namespace, subresource)

    def __getattr__(self, attr: str):
        return getattr(self.api, attr)


def stale_context(world, res: Resource, snapshot: dict) -> Context:
    return Context(StaleReads(world.guest.client, res, snapshot), world.ctx.dvp, world.config, world.clock)


def test_machine_released_again_from_a_stale_copy_is_done(world):
    world.capi_machine("w-1")
    world.reconcile("w-1")
    world.vm_phase("w-1", "Running")
    world.reconcile("w-1")
    world.delete_machine("w-1")
    world.reconcile("w-1")  # VM deletion issued
    stale = copy.deepcopy(world.dm("w-1"))
    assert stale["metadata"]["deletionTimestamp"] and stale["metadata"]["finalizers"]
    assert world.reconcile("w-1") == DONE
    assert world.dm("w-1") is None  # released: gone with our finalizer
    assert MachineReconciler(stale_context(world, r.DECKHOUSE_MACHINE, stale)).reconcile(NS, "w-1") == DONE


def test_cluster_released_again_from_a_stale_copy_is_done(world):
    world.guest.put(r.DECKHOUSE_CLUSTER, {"metadata": {"name": "dvp"}, "spec": {}}, NS)
    world.clusters.reconcile(NS, "dvp")
    world.guest.client.delete(r.DECKHOUSE_CLUSTER, "dvp", NS)
    stale = copy.deepcopy(world.guest.peek(r.DECKHOUSE_CLUSTER, "dvp", NS))
    assert world.clusters.reconcile(NS, "dvp") == DONE
    assert world.guest.peek(r.DECKHOUSE_CLUSTER, "dvp", NS) is None
    assert ClusterReconciler(stale_context(world, r.DECKHOUSE_CLUSTER, stale)).reconcile(NS, "dvp") == DONE

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real external-provisioner with capacity tracking, as the chart runs it (--enable-capacity,
--capacity-ownerref-level=2: the CSIStorageCapacity objects belong to the controller's Deployment), publishes the
DVP project's ResourceQuota headroom per guest StorageClass and follows the quota when it changes. The controller's
Deployment, ReplicaSet and Pod are made by the guest's own kube-controller-manager, scheduler and kwok.

Only the poll interval is shorter than the chart's minute: a quota change reaches the provisioner by its poll."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from csi_sidecars import CAPACITY, GUEST_CLASS, POD, Sidecar, World, sidecar_world, until_listed
from dvp_common.dvp import resources as r
from dvp_common.dvp.quotas import class_key
from dvp_common.kube import Resource
from dvp_csi import DRIVER_NAME
from dvp_csi.domain.topology import SEGMENT

from sim import SimConfig
from testkit.csi.env import NODE
from testkit.csi.sim import STORAGE_CLASS
from testkit.harness.guest_controllers import register_node

DEPLOYMENT = Resource("apps", "v1", "deployments", "Deployment")
CONTROLLER = "csi-controller"
POLL = "--capacity-poll-interval=1s"
CHART_FLAGS = ["--enable-capacity", "--capacity-ownerref-level=2"]


def controller_deployment(g, ns: str) -> tuple[dict, str]:
    """The CSI controller's Deployment; returns it and the name of the Pod kube-controller-manager made for it."""
    labels = {"app": CONTROLLER}
    dep = g.create(DEPLOYMENT, {"metadata": {"name": CONTROLLER}, "spec": {
        "replicas": 1, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
            "nodeSelector": {"kubernetes.io/hostname": NODE},
            "containers": [{"name": "provisioner", "image": "registry.example/csi-provisioner:1"}]}}}}, ns)
    [pod] = until_listed(f"the Pod of Deployment {ns}/{CONTROLLER}", g, POD, ns, lambda pods: [
        p for p in pods if (p.get("status") or {}).get("phase") == "Running"], lambda: "")
    return dep, pod["metadata"]["name"]


@pytest.fixture
def world(dvp_api, guest_controllers, tmp_path) -> Iterator[tuple[World, str, dict]]:
    guest = guest_controllers.server.client()
    ns = guest_controllers.server.create_namespace("d8-csi")  # the controller's: CSIStorageCapacity objects go there
    try:
        register_node(guest, NODE, csi_driver=DRIVER_NAME, topology=SEGMENT)  # where the controller's Pod runs
        deployment, pod_name = controller_deployment(guest, ns)
    finally:
        guest.close()
    provisioner = Sidecar("csi-provisioner", [*CHART_FLAGS, POLL], {"NAMESPACE": ns, "POD_NAME": pod_name})
    for w in sidecar_world(dvp_api, guest_controllers, tmp_path, [provisioner], nodes={},
                           sim=SimConfig(default_latency=0.02, watch_timeout=1, quota_status=True)):
        yield w, ns, deployment


def ours(caps: list[dict]) -> list[dict]:
    """The objects of our class for our segment: a Node of another test that runs the driver in another segment
    (the shared guest API) has an object of its own."""
    return [c for c in caps if c.get("storageClassName") == GUEST_CLASS
            and c.get("nodeTopology") == {"matchLabels": SEGMENT}]


def capacity_is(w: World, ns: str, want: str):
    """Waits until the one object of our class and segment holds `want`. Under load the provisioner can make a
    second object for the same class and segment: a poll that runs before its informer has seen the first object
    creates again, and the later object is deleted once both are seen (external-provisioner v6,
    pkg/capacity/capacity.go, syncCapacity and onCAddOrUpdate). The first one made is the one kept."""
    def single(caps: list[dict]) -> list[dict]:
        mine = ours(caps)
        return mine if len(mine) == 1 and mine[0].get("capacity") == want else []

    return until_listed(f"one CSIStorageCapacity of {GUEST_CLASS} = {want}", w.guest, CAPACITY, ns, single, w.logs)


def set_quota(w: World, hard: str) -> None:
    body = {"metadata": {"name": "project"}, "spec": {"hard": {class_key(STORAGE_CLASS): hard}}}
    if w.env.get(r.RESOURCE_QUOTA, "project") is None:
        w.dvp.create(r.RESOURCE_QUOTA, body, w.dvp_ns)
    else:
        w.dvp.patch(r.RESOURCE_QUOTA, "project", body, w.dvp_ns)


@pytest.mark.tools
def test_the_real_provisioner_publishes_and_follows_the_quota_headroom(world):
    w, ns, deployment = world
    set_quota(w, "3Gi")
    [cap] = capacity_is(w, ns, "3Gi")
    assert cap["metadata"]["labels"] == {"csi.storage.k8s.io/drivername": DRIVER_NAME,
                                         "csi.storage.k8s.io/managed-by": "external-provisioner"}
    assert [(o["kind"], o["name"], o["uid"]) for o in cap["metadata"]["ownerReferences"]] == [
        ("Deployment", CONTROLLER, deployment["metadata"]["uid"])]
    assert cap["nodeTopology"] == {"matchLabels": SEGMENT}  # one object for every node running the driver

    set_quota(w, "5Gi")  # the quota grows: the same object follows
    [grown] = capacity_is(w, ns, "5Gi")
    assert grown["metadata"]["uid"] == cap["metadata"]["uid"]  # updated, never deleted and re-made

    w.provision("data", "2Gi")  # a disk takes part of it
    [taken] = capacity_is(w, ns, "3Gi")
    assert taken["metadata"]["uid"] == cap["metadata"]["uid"]
    # one object for the class and segment, never a second (other tests' classes of the shared guest API have
    # their own)
    assert [c["metadata"]["name"] for c in ours(w.guest.list(CAPACITY, ns).items)] == [cap["metadata"]["name"]]

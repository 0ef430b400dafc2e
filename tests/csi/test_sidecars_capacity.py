# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real external-provisioner with capacity tracking, as the chart runs it (--enable-capacity,
--capacity-ownerref-level=2: the CSIStorageCapacity objects belong to the controller's Deployment), publishes the
DVP project's ResourceQuota headroom per guest StorageClass and follows the quota when it changes.

Only the poll interval is shorter than the chart's minute: a quota change reaches the provisioner by its poll."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from csi_sidecars import ARGS, CAPACITY, GUEST_CLASS, PVC, Sidecar, World, bind, pvc_body, sidecar_world, until_listed
from csi_sim import STORAGE_CLASS
from dvp_common.dvp import resources as r
from dvp_common.dvp.quotas import class_key
from dvp_common.kube import Resource
from dvp_csi import DRIVER_NAME
from dvp_csi.domain.topology import SEGMENT
from dvp_sim import SimConfig

DEPLOYMENT = Resource("apps", "v1", "deployments", "Deployment")
REPLICA_SET = Resource("apps", "v1", "replicasets", "ReplicaSet")
POD = Resource("", "v1", "pods", "Pod")
CONTROLLER = "csi-controller"
POLL = "--capacity-poll-interval=1s"
CHART_FLAGS = ["--enable-capacity", "--capacity-ownerref-level=2"]


def owner(obj: dict) -> list[dict]:
    return [{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
             "uid": obj["metadata"]["uid"], "controller": True}]


def controller_pod(g, ns: str) -> dict:
    """The Deployment -> ReplicaSet -> Pod chain a kube-controller-manager would have made for the CSI controller."""
    labels = {"app": CONTROLLER}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "provisioner", "image": "x"}]}}
    dep = g.create(DEPLOYMENT, {"metadata": {"name": CONTROLLER}, "spec": {
        "selector": {"matchLabels": labels}, "template": template}}, ns)
    dep = {**dep, "apiVersion": "apps/v1", "kind": "Deployment"}
    rs = g.create(REPLICA_SET, {"metadata": {"name": f"{CONTROLLER}-1", "labels": labels,
                                             "ownerReferences": owner(dep)},
                                "spec": {"selector": {"matchLabels": labels}, "template": template}}, ns)
    rs = {**rs, "apiVersion": "apps/v1", "kind": "ReplicaSet"}
    g.create(POD, {"metadata": {"name": f"{CONTROLLER}-1-a", "labels": labels, "ownerReferences": owner(rs)},
                   "spec": template["spec"]}, ns)
    return dep


@pytest.fixture
def world(dvp_api, guest_api, tmp_path) -> Iterator[tuple[World, str, dict]]:
    ns = guest_api.create_namespace("d8-csi")  # the controller's namespace: CSIStorageCapacity objects go there
    made: dict = {}

    def deployment(g) -> None:
        made["deployment"] = controller_pod(g, ns)

    provisioner = Sidecar("csi-provisioner", [*ARGS["csi-provisioner"], *CHART_FLAGS, POLL],
                          {"NAMESPACE": ns, "POD_NAME": f"{CONTROLLER}-1-a"})
    for w in sidecar_world(dvp_api, guest_api, tmp_path, [provisioner], deployment, nodes={},
                           sim=SimConfig(default_latency=0.02, watch_timeout=1, quota_status=True)):
        yield w, ns, made["deployment"]


def capacity_is(w: World, ns: str, want: str):
    return until_listed(f"CSIStorageCapacity of {GUEST_CLASS} = {want}", w.guest, CAPACITY, ns, lambda caps: [
        c for c in caps if c.get("storageClassName") == GUEST_CLASS and c.get("capacity") == want], w.procs)


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

    w.guest.create(PVC, pvc_body("data", "2Gi"), w.ns)  # a disk takes part of it
    bind(w.guest, w.ns, "data", w.procs)
    [taken] = capacity_is(w, ns, "3Gi")
    assert taken["metadata"]["uid"] == cap["metadata"]["uid"]
    # one object for the class, never a second (other tests' classes of the shared guest API have their own)
    assert [c["metadata"]["name"] for c in w.guest.list(CAPACITY, ns).items
            if c["storageClassName"] == GUEST_CLASS] == [cap["metadata"]["name"]]

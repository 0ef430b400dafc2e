# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Tenant isolation, a guest user who may create PersistentVolumes and VolumeSnapshotContents: every disk of the DVP
namespace that is not a CSI volume of this cluster is out of reach. The attacker's objects are real guest API
objects; the CSI calls are exactly those the sidecars and kubelet derive from them (volumeHandle -> volume_id,
snapshotHandle -> snapshot_id). The DVP side is a real API with the simulator; every DVP object keeps its
resourceVersion.

Related attacker tests elsewhere: a Machine pointing at an existing VM (tests/capdvp/test_real_api.py
`test_a_machine_pointing_at_an_existing_vm_is_refused_and_nothing_changes`, and the admission webhook through
kube-apiserver in tests/capdvp/test_admission_real.py); a LoadBalancer Service selecting foreign VMs
(tests/ccm/test_ccm_real_api.py `test_attacker_service_cannot_reach_foreign_vms_or_services`)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube import Resource
from dvp_csi.domain import labels
from dvp_csi.generated import csi_pb2

from sim.builders import disk as disk_body
from sim.builders import phase_is
from testkit.csi.env import OTHER_CLUSTER
from testkit.csi.requests import GIB, cap, create, expect_code, publish, unpublish
from testkit.csi.sim import STORAGE_CLASS, SimEnv, add_vm, sim_env

C = grpc.StatusCode
PV = Resource("", "v1", "persistentvolumes", "PersistentVolume", namespaced=False)
DRIVER = "csi.dvp.deckhouse.io"
EVERY_KIND = (r.VIRTUAL_DISK, r.VMBDA, r.VIRTUAL_DISK_SNAPSHOT, r.VIRTUAL_MACHINE)
# What a node's or another cluster's disk looks like in the shared DVP namespace.
VICTIMS = {
    "worker-boot": "vm-worker-0-boot",  # capdvp's boot disk of this cluster's node
    "worker-data": "vm-worker-0-additional-disk-0",  # capdvp's additional disk of the same node
    "master-boot": "master-0-boot",  # dhctl's boot disk of a master (OpenTofu layout)
    "other-cluster-volume": "pvc-of-another-cluster",  # a CSI volume of another cluster, same namespace
    "other-cluster-node": "vm-their-0-boot",  # another cluster's node disk
    "unlabelled": "pvc-hand-made",  # a disk a DVP user made by hand, named like a volume
}


@pytest.fixture
def world(dvp_api, tmp_path) -> Iterator[SimEnv]:
    for env in sim_env(dvp_api, tmp_path):
        seed(env)
        yield env


def seed(env: SimEnv) -> None:
    master = {labels.CLUSTER_UUID: env.csi.settings.cluster_uuid, labels.COMPONENT: "dhctl",
              labels.MANAGED_BY: "deckhouse", labels.HOSTNAME: "master-0"}
    body = disk_body("master-0-boot", "2Gi", STORAGE_CLASS, ("ClusterVirtualImage", "ubuntu"))
    body["metadata"]["labels"] = master
    env.dvp.create(r.VIRTUAL_DISK, body, env.ns)
    add_vm(env.dvp, env.ns, "vm-their-0", "their-0", cluster_uuid=OTHER_CLUSTER, static_disks=1)
    for name, lbls in (("pvc-of-another-cluster", {labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi"}),
                       ("pvc-hand-made", {})):
        body = disk_body(name, "1Gi", STORAGE_CLASS)
        body["metadata"]["labels"] = lbls
        env.dvp.create(r.VIRTUAL_DISK, body, env.ns)
    for name in VICTIMS.values():
        env.dvp.wait_for(r.VIRTUAL_DISK, name, phase_is("Ready"), 30, env.ns)
    snap = {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualDiskSnapshot",
            "metadata": {"name": "snap-of-another-cluster",
                         "labels": {labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi"}},
            "spec": {"virtualDiskName": "pvc-of-another-cluster", "requiredConsistency": False}}
    env.dvp.create(r.VIRTUAL_DISK_SNAPSHOT, snap, env.ns)
    env.dvp.wait_for(r.VIRTUAL_DISK_SNAPSHOT, "snap-of-another-cluster", phase_is("Ready"), 30, env.ns)


def state(env: SimEnv) -> dict:
    """Every DVP object of the namespace with its resourceVersion: equal states mean nothing was written."""
    return {(res.kind, o["metadata"]["name"]): o["metadata"]["resourceVersion"]
            for res in EVERY_KIND for o in env.dvp.list(res, env.ns).items}


def attacker_pv(guest, victim: str) -> dict:
    """The PV the attacker writes in the guest: static, naming the victim disk."""
    return guest.create(PV, {"metadata": {"generateName": "evil-"}, "spec": {
        "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "",
        "csi": {"driver": DRIVER, "volumeHandle": victim, "fsType": "ext4"}}})


@pytest.mark.parametrize("who", sorted(VICTIMS))
def test_a_pv_naming_a_disk_that_is_not_our_volume_reaches_nothing(world, guest_api, who):
    guest = guest_api.client()
    pv = attacker_pv(guest, VICTIMS[who])
    volume_id = pv["spec"]["csi"]["volumeHandle"]  # what every sidecar passes on
    c, n = world.csi.controller, world.csi.node
    before = state(world)
    expect_code(C.NOT_FOUND, c.ControllerPublishVolume, publish(volume_id, node="worker-1"))  # external-attacher
    expect_code(C.NOT_FOUND, c.ControllerUnpublishVolume, unpublish(volume_id))
    expand = csi_pb2.ControllerExpandVolumeRequest(volume_id=volume_id, volume_capability=cap())
    expand.capacity_range.required_bytes = 100 * GIB
    expect_code(C.NOT_FOUND, c.ControllerExpandVolume, expand)  # external-resizer
    expect_code(C.PERMISSION_DENIED, c.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id=volume_id))  # Delete
    expect_code(C.NOT_FOUND, c.CreateSnapshot,  # external-snapshotter, VolumeSnapshot of a PVC bound to the PV
                csi_pb2.CreateSnapshotRequest(name=f"snap-{who}", source_volume_id=volume_id))
    expect_code(C.NOT_FOUND, c.CreateVolume, create(f"pvc-clone-{who}", sc=STORAGE_CLASS, volume=volume_id))
    # kubelet stages only what the attacher published: without the attacher's publish_context there is no device.
    stage = csi_pb2.NodeStageVolumeRequest(volume_id=volume_id, staging_target_path="/tmp/never",
                                           volume_capability=cap())
    expect_code(C.FAILED_PRECONDITION, n.NodeStageVolume, stage, "publish_context.serial")
    assert state(world) == before
    guest.delete(PV, pv["metadata"]["name"])
    guest.close()


def test_a_snapshot_content_naming_another_clusters_snapshot_restores_nothing(world):
    c = world.csi.controller
    before = state(world)
    # A pre-provisioned VolumeSnapshotContent's snapshotHandle reaches the driver as the snapshot id.
    expect_code(C.NOT_FOUND, c.CreateVolume, create("pvc-restore", sc=STORAGE_CLASS,
                                                    snapshot="snap-of-another-cluster"))
    # deletionPolicy Delete on that content: the driver refuses to delete a snapshot it did not make.
    expect_code(C.PERMISSION_DENIED, c.DeleteSnapshot,
                csi_pb2.DeleteSnapshotRequest(snapshot_id="snap-of-another-cluster"))
    listed = c.ListSnapshots(csi_pb2.ListSnapshotsRequest(snapshot_id="snap-of-another-cluster"))
    assert list(listed.entries) == []
    assert state(world) == before

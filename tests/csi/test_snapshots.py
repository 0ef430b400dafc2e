# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Create/Delete/List/GetSnapshot through VirtualDiskSnapshots."""

from __future__ import annotations

import grpc
from dvp_common.dvp import resources as r
from dvp_csi.domain import labels
from dvp_csi.generated import csi_pb2

from sim.builders import phase_is
from testkit.csi.env import CLUSTER, OTHER_CLUSTER
from testkit.csi.requests import GIB, create, expect_code

C = grpc.StatusCode


def snap(name, source, **params):
    return csi_pb2.CreateSnapshotRequest(name=name, source_volume_id=source, parameters=params)


def test_create_snapshot(csi, dvp):
    csi.controller.CreateVolume(create("pvc-s", required=2 * GIB))
    s = csi.controller.CreateSnapshot(snap("snap-1", "pvc-s")).snapshot
    # the answer to the create carries the state DVP returned (not ready yet); the snapshotter asks again
    assert (s.snapshot_id, s.source_volume_id, s.size_bytes, s.ready_to_use) == ("snap-1", "pvc-s", 2 * GIB, False)
    assert s.creation_time.seconds > 0
    vds = dvp.get(r.VIRTUAL_DISK_SNAPSHOT, "snap-1")
    assert vds["spec"] == {"virtualDiskName": "pvc-s", "requiredConsistency": False}
    assert vds["metadata"]["labels"] == {labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "csi",
                                         labels.MANAGED_BY: "deckhouse", "virtualDiskName": "pvc-s"}
    assert vds["metadata"]["annotations"] == {"csi.dvp.deckhouse.io/name": "snap-1",
                                              "csi.dvp.deckhouse.io/size-bytes": str(2 * GIB)}
    dvp.wait(r.VIRTUAL_DISK_SNAPSHOT, "snap-1", phase_is("Ready"))
    again = csi.controller.CreateSnapshot(snap("snap-1", "pvc-s")).snapshot  # idempotent, now ready
    assert (again.snapshot_id, again.creation_time, again.ready_to_use) == ("snap-1", s.creation_time, True)
    assert dvp.names(r.VIRTUAL_DISK_SNAPSHOT) == ["snap-1"]
    csi.controller.CreateVolume(create("pvc-t"))
    expect_code(C.ALREADY_EXISTS, csi.controller.CreateSnapshot, snap("snap-1", "pvc-t"), "for another volume")
    consistent = csi.controller.CreateSnapshot(snap("snap-2", "pvc-s", requiredConsistency="true")).snapshot
    assert dvp.get(r.VIRTUAL_DISK_SNAPSHOT, consistent.snapshot_id)["spec"]["requiredConsistency"] is True
    expect_code(C.INVALID_ARGUMENT, csi.controller.CreateSnapshot, snap("snap-3", "pvc-s", requiredConsistency="x"),
                "requiredConsistency must be true or false")
    expect_code(C.INVALID_ARGUMENT, csi.controller.CreateSnapshot, snap("", "pvc-s"), "name is required")
    expect_code(C.INVALID_ARGUMENT, csi.controller.CreateSnapshot, snap("snap-4", ""), "source_volume_id is required")
    expect_code(C.NOT_FOUND, csi.controller.CreateSnapshot, snap("snap-5", "pvc-missing"))


def test_delete_list_get(csi, dvp):
    csi.controller.CreateVolume(create("pvc-a"))
    csi.controller.CreateVolume(create("pvc-b"))
    for name, src in (("snap-a1", "pvc-a"), ("snap-a2", "pvc-a"), ("snap-b1", "pvc-b")):
        csi.controller.CreateSnapshot(snap(name, src))
    foreign = {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualDiskSnapshot", "metadata": {
        "name": "snap-foreign", "labels": {labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi",
                                           "virtualDiskName": "pvc-a"}},
        "spec": {"virtualDiskName": "pvc-a", "requiredConsistency": False}}
    dvp.dvp.create(r.VIRTUAL_DISK_SNAPSHOT, foreign, dvp.ns)
    dvp.wait(r.VIRTUAL_DISK_SNAPSHOT, "snap-foreign", phase_is("Ready"))

    def ids(**kw):
        return [e.snapshot.snapshot_id for e in csi.controller.ListSnapshots(
            csi_pb2.ListSnapshotsRequest(**kw)).entries]

    assert ids() == ["snap-a1", "snap-a2", "snap-b1"]
    assert ids(source_volume_id="pvc-a") == ["snap-a1", "snap-a2"]
    assert ids(snapshot_id="snap-b1") == ["snap-b1"]
    assert ids(snapshot_id="snap-foreign") == [] and ids(snapshot_id="nope") == []
    page = csi.controller.ListSnapshots(csi_pb2.ListSnapshotsRequest(max_entries=2))
    assert page.next_token == "2"  # noqa: S105
    expect_code(C.ABORTED, csi.controller.ListSnapshots, csi_pb2.ListSnapshotsRequest(starting_token="x"))  # noqa: S106
    assert csi.controller.GetSnapshot(csi_pb2.GetSnapshotRequest(snapshot_id="snap-a1")).snapshot.source_volume_id \
        == "pvc-a"
    expect_code(C.NOT_FOUND, csi.controller.GetSnapshot, csi_pb2.GetSnapshotRequest(snapshot_id="snap-foreign"))
    before = dvp.get(r.VIRTUAL_DISK_SNAPSHOT, "snap-foreign")
    expect_code(C.PERMISSION_DENIED, csi.controller.DeleteSnapshot,
                csi_pb2.DeleteSnapshotRequest(snapshot_id="snap-foreign"), "not a snapshot of this cluster")
    assert dvp.get(r.VIRTUAL_DISK_SNAPSHOT, "snap-foreign") == before
    csi.controller.DeleteSnapshot(csi_pb2.DeleteSnapshotRequest(snapshot_id="snap-a1"))
    csi.controller.DeleteSnapshot(csi_pb2.DeleteSnapshotRequest(snapshot_id="snap-a1"))  # gone: OK
    assert ids() == ["snap-a2", "snap-b1"]

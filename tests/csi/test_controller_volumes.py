# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CreateVolume, DeleteVolume, ControllerExpandVolume, ValidateVolumeCapabilities, ListVolumes: exact codes and
exact DVP objects, on the real API with the DVP simulator."""

from __future__ import annotations

import dataclasses
import threading

import grpc
import pytest
from dvp_common.dvp import resources as r
from dvp_csi.access import Dvp
from dvp_csi.generated import csi_pb2

from sim import SimConfig
from sim.builders import phase_is
from testkit.csi.env import CLUSTER, OTHER_CLUSTER, TIMEOUTS, make_settings, serve
from testkit.csi.requests import AM, GIB, MIB, cap, create, expect_code
from testkit.csi.sim import LATENCY, MISSING_CLASS, sim_env

C = grpc.StatusCode
# ruff: noqa: S105, S106 (pagination tokens, not passwords)


def ours(annotations):
    return {k: v for k, v in annotations.items() if k.startswith("csi.dvp.deckhouse.io/")}


def disk_of(dvp, name):
    return dvp.get(r.VIRTUAL_DISK, name)


def foreign_disk(dvp, name, cluster=OTHER_CLUSTER, component="csi"):
    return dvp.put_disk(name, {"dvp.deckhouse.io/cluster-uuid": cluster, "dvp.deckhouse.io/component": component},
                        "10Gi", "fast")


def test_create_makes_exactly_one_labelled_virtual_disk(csi, dvp):
    resp = csi.controller.CreateVolume(create("pvc-a", required=3 * GIB))
    assert (resp.volume.volume_id, resp.volume.capacity_bytes) == ("pvc-a", 3 * GIB)
    d = disk_of(dvp, "pvc-a")
    assert d["metadata"]["labels"] == {
        "dvp.deckhouse.io/cluster-uuid": CLUSTER, "dvp.deckhouse.io/component": "csi",
        "deckhouse.io/managed-by": "deckhouse", "virtualDiskName": "pvc-a"}
    assert ours(d["metadata"]["annotations"]) == {"csi.dvp.deckhouse.io/name": "pvc-a"}  # DVP adds its own
    assert d["metadata"]["namespace"] == dvp.ns
    assert d["spec"] == {"persistentVolumeClaim": {"storageClassName": "fast", "size": "3Gi"}}


def test_create_defaults_to_one_gib_and_rounds_up_to_mib(csi, dvp):
    assert csi.controller.CreateVolume(create("pvc-d")).volume.capacity_bytes == GIB
    assert csi.controller.CreateVolume(create("pvc-r", required=MIB + 1)).volume.capacity_bytes == 2 * MIB
    assert disk_of(dvp, "pvc-r")["spec"]["persistentVolumeClaim"]["size"] == "2Mi"


def test_create_normalises_names_that_are_not_dns_labels(csi, dvp):
    vol = csi.controller.CreateVolume(create("Sanity-Vol_1")).volume
    assert vol.volume_id.startswith("pvc-") and len(vol.volume_id) == 44
    assert disk_of(dvp, vol.volume_id)["metadata"]["annotations"]["csi.dvp.deckhouse.io/name"] == "Sanity-Vol_1"
    assert csi.controller.CreateVolume(create("Sanity-Vol_1")).volume.volume_id == vol.volume_id


def test_create_is_idempotent_by_name(csi, dvp):
    first = csi.controller.CreateVolume(create("pvc-i", required=GIB))
    dvp.driver_client.metrics.reset()
    again = csi.controller.CreateVolume(create("pvc-i", required=GIB))
    assert again == first
    assert [n for n in dvp.names(r.VIRTUAL_DISK) if n.startswith("pvc-")] == ["pvc-i"]
    assert dvp.driver_client.metrics.snapshot() == {  # GET, then the wait, whose LIST already sees it Ready
        f"{verb} virtualdisks.virtualization.deckhouse.io": 1 for verb in ("get", "list")}


@pytest.mark.parametrize("second", [
    create("pvc-x", required=2 * GIB),
    create("pvc-x", sc="slow", required=GIB),
    create("pvc-x", limit=GIB // 2),
])
def test_create_same_name_different_volume_is_already_exists(csi, dvp, second):
    csi.controller.CreateVolume(create("pvc-x", required=GIB))
    expect_code(C.ALREADY_EXISTS, csi.controller.CreateVolume, second, "already exists with different")
    assert disk_of(dvp, "pvc-x")["spec"]["persistentVolumeClaim"] == {"storageClassName": "fast", "size": "1Gi"}


def test_create_over_a_foreign_disk_name_is_already_exists_and_leaves_it(csi, dvp):
    foreign_disk(dvp, "pvc-f")
    before = dvp.state()
    expect_code(C.ALREADY_EXISTS, csi.controller.CreateVolume, create("pvc-f"), "not a CSI volume of this cluster")
    assert dvp.state() == before


@pytest.mark.parametrize(("request_", "code", "text"), [
    (create(""), C.INVALID_ARGUMENT, "CreateVolume: name is required"),
    (create("pvc-1", caps=[]), C.INVALID_ARGUMENT, "CreateVolume: volume_capabilities is required"),
    (create("pvc-1", sc=None), C.INVALID_ARGUMENT, "volume pvc-1: parameters.dvpStorageClass is required"),
    (create("pvc-1", caps=[cap(AM.MULTI_NODE_MULTI_WRITER)]), C.INVALID_ARGUMENT, "MULTI_NODE_MULTI_WRITER"),
    (create("pvc-1", caps=[csi_pb2.VolumeCapability(access_mode=AM(mode=AM.SINGLE_NODE_WRITER))]),
     C.INVALID_ARGUMENT, "access_type (block or mount) is required"),
    (create("pvc-1", caps=[cap(fs="btrfs")]), C.INVALID_ARGUMENT, "fs_type 'btrfs' is not supported"),
    (create("pvc-1", required=2 * GIB, limit=GIB), C.OUT_OF_RANGE, "exceeds limit_bytes"),
    (create("pvc-1", required=-1), C.INVALID_ARGUMENT, "must not be negative"),
    (create("pvc-1", snapshot="snap-missing"), C.NOT_FOUND, "snapshot snap-missing"),
    (create("pvc-1", volume="pvc-missing"), C.NOT_FOUND, "volume pvc-missing"),
])
def test_create_rejects_bad_requests_and_changes_nothing(csi, dvp, request_, code, text):
    before = dvp.state()
    expect_code(code, csi.controller.CreateVolume, request_, text)
    assert dvp.state() == before


def test_create_quota_is_resource_exhausted(dvp_api, tmp_path):
    sim = SimConfig(default_latency=LATENCY, watch_timeout=1, quota_bytes=2 * GIB)
    for env in sim_env(dvp_api, tmp_path, nodes={}, sim=sim):
        env.csi.controller.CreateVolume(create("pvc-1", required=GIB))
        expect_code(C.RESOURCE_EXHAUSTED, env.csi.controller.CreateVolume, create("pvc-2", required=2 * GIB),
                    "VirtualDisk pvc-2: quota exceeded")
        ready = next(c for c in disk_of(env, "pvc-2")["status"]["conditions"] if c["type"] == "Ready")
        assert (ready["status"], ready["reason"]) == ("False", "QuotaExceeded")  # DVP keeps it waiting for room


def test_create_provisioning_failure_is_internal(csi):
    expect_code(C.INTERNAL, csi.controller.CreateVolume, create("pvc-1", sc=MISSING_CLASS),
                "VirtualDisk pvc-1 failed: StorageClassIsNotReady")


def test_create_wait_for_first_consumer_is_success(csi, dvp):
    assert csi.controller.CreateVolume(create("pvc-w", sc="wffc", required=GIB)).volume.capacity_bytes == GIB
    assert disk_of(dvp, "pvc-w")["status"]["phase"] == "WaitForFirstConsumer"


def test_create_slower_than_the_wait_is_deadline_exceeded_then_completes(dvp_api, tmp_path):
    sim = SimConfig(default_latency=LATENCY, watch_timeout=1, latency={"VirtualDisk.Provisioning": 2.0})
    for env in sim_env(dvp_api, tmp_path, nodes={}, sim=sim, timeouts=dataclasses.replace(TIMEOUTS, create=0.3)):
        expect_code(C.DEADLINE_EXCEEDED, env.csi.controller.CreateVolume, create("pvc-s"),
                    "VirtualDisk pvc-s is not ready yet (phase 'Provisioning')")
        env.wait(r.VIRTUAL_DISK, "pvc-s", phase_is("Ready"))
        assert env.csi.controller.CreateVolume(create("pvc-s")).volume.volume_id == "pvc-s"
        assert env.names(r.VIRTUAL_DISK) == ["pvc-s"]


def test_concurrent_operation_on_the_same_volume_is_aborted(dvp_api, tmp_path):
    sim = SimConfig(default_latency=LATENCY, watch_timeout=1, latency={"VirtualDisk.Provisioning": 2.0})
    for env in sim_env(dvp_api, tmp_path, nodes={}, sim=sim):
        first = threading.Thread(target=env.csi.controller.CreateVolume, args=(create("pvc-c"),))
        first.start()
        env.wait(r.VIRTUAL_DISK, "pvc-c", lambda d: d is not None)  # the first call now waits for Ready
        expect_code(C.ABORTED, env.csi.controller.CreateVolume, create("pvc-c"), "already in progress")
        first.join()


def test_create_from_snapshot_and_clone(csi, dvp):
    csi.controller.CreateVolume(create("pvc-src", required=2 * GIB))
    snap = csi.controller.CreateSnapshot(csi_pb2.CreateSnapshotRequest(name="snap-1", source_volume_id="pvc-src"))
    restored = csi.controller.CreateVolume(create("pvc-restored", snapshot="snap-1")).volume
    assert restored.capacity_bytes == 2 * GIB and restored.content_source.snapshot.snapshot_id == "snap-1"
    assert disk_of(dvp, "pvc-restored")["spec"]["dataSource"] == {
        "type": "ObjectRef", "objectRef": {"kind": "VirtualDiskSnapshot", "name": snap.snapshot.snapshot_id}}
    expect_code(C.OUT_OF_RANGE, csi.controller.CreateVolume, create("pvc-small", snapshot="snap-1", required=GIB),
                "smaller than its source")
    clone = csi.controller.CreateVolume(create("pvc-clone", volume="pvc-src", required=3 * GIB)).volume
    assert clone.capacity_bytes == 3 * GIB
    inter = dvp.get(r.VIRTUAL_DISK_SNAPSHOT, "clone-pvc-clone")
    assert inter["spec"] == {"virtualDiskName": "pvc-src", "requiredConsistency": False}
    assert inter["metadata"]["labels"]["csi.dvp.deckhouse.io/clone-for"] == "pvc-clone"
    assert disk_of(dvp, "pvc-clone")["spec"]["dataSource"]["objectRef"] == {
        "kind": "VirtualDiskSnapshot", "name": "clone-pvc-clone"}
    listed = csi.controller.ListSnapshots(csi_pb2.ListSnapshotsRequest())
    assert [e.snapshot.snapshot_id for e in listed.entries] == ["snap-1"]  # the clone intermediate is internal
    csi.controller.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id="pvc-clone"))
    assert dvp.get(r.VIRTUAL_DISK_SNAPSHOT, "clone-pvc-clone") is None


def test_clone_of_a_foreign_disk_is_not_found(csi, dvp):
    before = dvp.state()  # vm-worker-0-boot: capdvp made it for the node's VM
    expect_code(C.NOT_FOUND, csi.controller.CreateVolume, create("pvc-steal", volume="vm-worker-0-boot"))
    assert dvp.state() == before


def test_delete(csi, dvp):
    csi.controller.CreateVolume(create("pvc-del"))
    csi.controller.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id="pvc-del"))
    assert disk_of(dvp, "pvc-del") is None
    csi.controller.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id="pvc-del"))  # gone: still OK
    expect_code(C.INVALID_ARGUMENT, csi.controller.DeleteVolume, csi_pb2.DeleteVolumeRequest(),
                "DeleteVolume: volume_id is required")


@pytest.mark.parametrize(("cluster", "component"), [(OTHER_CLUSTER, "csi"), (CLUSTER, "capdvp")])
def test_delete_of_a_foreign_disk_is_permission_denied_and_changes_nothing(csi, dvp, cluster, component):
    foreign_disk(dvp, "victim", cluster=cluster, component=component)
    before = dvp.state()
    expect_code(C.PERMISSION_DENIED, csi.controller.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id="victim"),
                "VirtualDisk victim is not a CSI volume of this cluster")
    assert dvp.state() == before


def test_delete_of_an_attached_volume_is_failed_precondition(csi, dvp):
    csi.controller.CreateVolume(create("pvc-att"))
    csi.controller.ControllerPublishVolume(csi_pb2.ControllerPublishVolumeRequest(
        volume_id="pvc-att", node_id="worker-0", volume_capability=cap()))
    expect_code(C.FAILED_PRECONDITION, csi.controller.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id="pvc-att"),
                "still attached to vm-worker-0")
    assert disk_of(dvp, "pvc-att") is not None


def expand(volume_id, required, block=False):
    req = csi_pb2.ControllerExpandVolumeRequest(volume_id=volume_id, volume_capability=cap(block=block))
    req.capacity_range.required_bytes = required
    return req


def test_expand(csi, dvp):
    csi.controller.CreateVolume(create("pvc-e", required=GIB))
    resp = csi.controller.ControllerExpandVolume(expand("pvc-e", 2 * GIB))
    assert (resp.capacity_bytes, resp.node_expansion_required) == (2 * GIB, True)
    assert disk_of(dvp, "pvc-e")["spec"]["persistentVolumeClaim"]["size"] == "2Gi"
    assert disk_of(dvp, "pvc-e")["status"]["capacity"] == "2Gi"
    resp = csi.controller.ControllerExpandVolume(expand("pvc-e", GIB, block=True))  # already larger: no change
    assert (resp.capacity_bytes, resp.node_expansion_required) == (2 * GIB, False)
    expect_code(C.INVALID_ARGUMENT, csi.controller.ControllerExpandVolume,
                csi_pb2.ControllerExpandVolumeRequest(volume_id="pvc-e"), "capacity_range is required")


def test_a_grow_the_quota_refuses_is_resource_exhausted_with_dvps_message(dvp_api, tmp_path):
    for env in sim_env(dvp_api, tmp_path, nodes={}):
        env.dvp.create(r.RESOURCE_QUOTA, {"metadata": {"name": "storage"},
                                           "spec": {"hard": {"requests.storage": "2Gi"}}}, env.ns)
        env.csi.controller.CreateVolume(create("pvc-q", required=GIB))
        pvc = disk_of(env, "pvc-q")["status"]["target"]["persistentVolumeClaimName"]
        details = expect_code(C.RESOURCE_EXHAUSTED, env.csi.controller.ControllerExpandVolume,
                              expand("pvc-q", 5 * GIB))
        assert details == (f'VirtualDisk pvc-q: Disk resizing is not allowed: persistentvolumeclaims "{pvc}" is '
                           "forbidden: exceeded quota: storage, requested: requests.storage=5Gi, used: "
                           "requests.storage=0, limited: requests.storage=2Gi.")
        disk = disk_of(env, "pvc-q")
        assert (disk["status"]["phase"], disk["status"]["capacity"]) == ("Ready", "1Gi")
        resizing = next(c for c in disk["status"]["conditions"] if c["type"] == "Resizing")
        assert resizing["observedGeneration"] == disk["metadata"]["generation"]  # as DVP's condition builder


def test_expand_of_a_foreign_disk_is_not_found(csi, dvp):
    foreign_disk(dvp, "victim")
    before = dvp.state()
    expect_code(C.NOT_FOUND, csi.controller.ControllerExpandVolume, expand("victim", 20 * GIB))
    assert dvp.state() == before


def test_validate_volume_capabilities(csi, dvp):
    csi.controller.CreateVolume(create("pvc-v"))
    ok = csi.controller.ValidateVolumeCapabilities(csi_pb2.ValidateVolumeCapabilitiesRequest(
        volume_id="pvc-v", volume_capabilities=[cap(AM.SINGLE_NODE_READER_ONLY, block=True)]))
    assert list(ok.confirmed.volume_capabilities) == [cap(AM.SINGLE_NODE_READER_ONLY, block=True)]
    no = csi.controller.ValidateVolumeCapabilities(csi_pb2.ValidateVolumeCapabilitiesRequest(
        volume_id="pvc-v", volume_capabilities=[cap(AM.MULTI_NODE_READER_ONLY)]))
    assert not no.HasField("confirmed") and "MULTI_NODE_READER_ONLY" in no.message
    foreign_disk(dvp, "victim")
    expect_code(C.NOT_FOUND, csi.controller.ValidateVolumeCapabilities, csi_pb2.ValidateVolumeCapabilitiesRequest(
        volume_id="victim", volume_capabilities=[cap()]))


def test_list_volumes_paginates_over_our_disks_only(csi, dvp):
    for i in range(5):
        csi.controller.CreateVolume(create(f"pvc-{i}"))
    foreign_disk(dvp, "pvc-zz-foreign")
    page = csi.controller.ListVolumes(csi_pb2.ListVolumesRequest(max_entries=2))
    assert [e.volume.volume_id for e in page.entries] == ["pvc-0", "pvc-1"] and page.next_token == "2"
    rest = csi.controller.ListVolumes(csi_pb2.ListVolumesRequest(starting_token="2"))
    assert [e.volume.volume_id for e in rest.entries] == ["pvc-2", "pvc-3", "pvc-4"] and rest.next_token == ""
    expect_code(C.ABORTED, csi.controller.ListVolumes, csi_pb2.ListVolumesRequest(starting_token="bogus"))
    expect_code(C.ABORTED, csi.controller.ListVolumes, csi_pb2.ListVolumesRequest(starting_token="99"))


def test_capabilities(csi):
    caps = {c.rpc.type for c in csi.controller.ControllerGetCapabilities(
        csi_pb2.ControllerGetCapabilitiesRequest()).capabilities}
    R = csi_pb2.ControllerServiceCapability.RPC
    assert caps == {R.CREATE_DELETE_VOLUME, R.PUBLISH_UNPUBLISH_VOLUME, R.EXPAND_VOLUME, R.LIST_VOLUMES,
                    R.LIST_VOLUMES_PUBLISHED_NODES, R.CREATE_DELETE_SNAPSHOT, R.LIST_SNAPSHOTS, R.CLONE_VOLUME,
                    R.GET_VOLUME, R.GET_SNAPSHOT, R.MODIFY_VOLUME, R.GET_CAPACITY,
                    R.GET_VOLUME_HEALTH, R.LIST_VOLUME_HEALTH}


class _StubClient:
    """A kube client whose create answers as DVP's disk webhook does for a storage class that does not exist."""

    def create(self, res, body, namespace=None, **kw):
        from testkit.harness.dvp_answers import webhook_denial

        raise webhook_denial("VirtualDisk", 'the storage class "gone" does not exist', body["metadata"]["name"],
                             namespace)

    def get(self, res, name, namespace=None, **kw):
        from dvp_common.kube import NotFound

        raise NotFound(f"{res.plural} {name!r} not found")

    def list_all(self, res, namespace=None, **kw):
        from dvp_common.kube import ListResult

        return ListResult([], "1", "")

    def watch(self, res, namespace=None, **kw):
        return _QuietWatch()


class _QuietWatch:
    """A watch with no news that ends when closed (the quota informer closes it on stop)."""

    def __init__(self) -> None:
        self._closed = threading.Event()

    def __iter__(self):
        self._closed.wait()
        return iter(())

    def close(self) -> None:
        self._closed.set()


def test_dvps_webhook_refusal_at_create_is_failed_precondition_with_dvps_message(tmp_path):
    for running in serve(make_settings(tmp_path, namespace="proj"), Dvp.over(_StubClient(), "proj", CLUSTER)):
        expect_code(C.FAILED_PRECONDITION, running.controller.CreateVolume, create("pvc-1", sc="gone"),
                    'DVP refused the request: create VirtualDisk "proj/pvc-1": 403 Forbidden: admission webhook '
                    '"vd.virtualization-controller.validate.d8-virtualization" denied the request: the storage class '
                    '"gone" does not exist')

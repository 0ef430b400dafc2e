# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The driver on a real kube-apiserver serving the DVP CRDs (testkit/harness) with the DVP simulator (sim)
playing DVP's controllers: objects pass the API's schema, waits are real watches, and a guest attacker's requests
change nothing in DVP (tenant isolation)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc
import pytest
from csi_sanity import UNADVERTISED, run
from dvp_common.dvp import resources as r
from dvp_csi.domain import labels
from dvp_csi.generated import csi_pb2

from sim.builders import disk as disk_body
from sim.builders import phase_is
from testkit.csi.env import CLUSTER, OTHER_CLUSTER
from testkit.csi.loopdev import LoopDevices, check_environment
from testkit.csi.requests import GIB, MIB, cap, create, expect_code, publish, unpublish
from testkit.csi.sim import STORAGE_CLASS, WFFC_CLASS, SimEnv, sim_env

C = grpc.StatusCode


@pytest.fixture
def real(dvp_api, tmp_path) -> Iterator[SimEnv]:
    yield from sim_env(dvp_api, tmp_path)


def make(name, **kw):
    return create(name, sc=STORAGE_CLASS, **kw)


def test_volume_life_on_the_real_api(real):
    c = real.csi.controller
    vol = c.CreateVolume(make("pvc-real", required=2 * GIB)).volume
    assert (vol.volume_id, vol.capacity_bytes) == ("pvc-real", 2 * GIB)
    disk = real.dvp.get(r.VIRTUAL_DISK, "pvc-real", real.ns)
    assert disk["metadata"]["labels"] == {labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "csi",
                                          labels.MANAGED_BY: "deckhouse", "virtualDiskName": "pvc-real"}
    assert disk["spec"]["persistentVolumeClaim"] == {"storageClassName": STORAGE_CLASS, "size": "2Gi"}
    assert c.CreateVolume(make("pvc-real", required=2 * GIB)).volume == vol

    ctx = c.ControllerPublishVolume(publish("pvc-real")).publish_context
    assert len(ctx["serial"]) == 32
    assert real.names(r.VMBDA) == ["vmbda-pvc-real-vm-worker-0"]
    expect_code(C.FAILED_PRECONDITION, c.ControllerPublishVolume, publish("pvc-real", node="worker-1"))

    snap = c.CreateSnapshot(csi_pb2.CreateSnapshotRequest(name="snap-real", source_volume_id="pvc-real")).snapshot
    assert snap.snapshot_id == "snap-real"
    restored = c.CreateVolume(make("pvc-restored", snapshot="snap-real")).volume
    assert restored.capacity_bytes == 2 * GIB

    req = csi_pb2.ControllerExpandVolumeRequest(volume_id="pvc-real", volume_capability=cap())
    req.capacity_range.required_bytes = 3 * GIB
    assert c.ControllerExpandVolume(req).capacity_bytes == 3 * GIB
    assert real.dvp.get(r.VIRTUAL_DISK, "pvc-real", real.ns)["status"]["capacity"] == "3Gi"

    c.ControllerUnpublishVolume(unpublish("pvc-real"))
    assert real.names(r.VMBDA) == []
    c.ControllerPublishVolume(publish("pvc-real", node="worker-1"))  # the move, now allowed
    c.ControllerUnpublishVolume(unpublish("pvc-real", node="worker-1"))
    for volume_id in ("pvc-real", "pvc-restored"):
        c.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id=volume_id))
    c.DeleteSnapshot(csi_pb2.DeleteSnapshotRequest(snapshot_id="snap-real"))
    assert [n for n in real.names(r.VIRTUAL_DISK) if n.startswith("pvc-")] == []
    assert real.names(r.VIRTUAL_DISK_SNAPSHOT) == []


def test_dvp_requests_per_create_and_publish_on_the_real_api(real):
    m = real.driver_client.metrics
    # the quota watch starts once per process (LIST + WATCH of resourcequotas), before the steady state measured
    m.reset()
    real.csi.controller.GetCapacity(csi_pb2.GetCapacityRequest())
    deadline = time.monotonic() + 10
    while "watch resourcequotas" not in m.snapshot():  # poll the driver's own counter, bounded
        assert time.monotonic() < deadline, f"the quota watch never opened: {m.snapshot()}"
        time.sleep(0.02)
    m.reset()
    real.csi.controller.CreateVolume(make("pvc-count"))
    per_create = m.snapshot()
    m.reset()
    real.csi.controller.ControllerPublishVolume(publish("pvc-count"))
    per_publish = m.snapshot()
    print(f"DVP requests per CreateVolume {per_create}; per ControllerPublishVolume {per_publish}")
    assert sum(per_create.values()) <= 4, per_create  # GET, POST, LIST + WATCH (the wait)
    assert sum(per_publish.values()) <= 6, per_publish  # GET disk, LIST VMs, LIST VMBDAs, POST, LIST + WATCH


# -- tenant isolation on the real API: what a guest user who can create PVs would try ----------------------------------

def seed_foreign(real: SimEnv) -> None:
    """vm-worker-0-boot is already there (capdvp made it); add a CSI volume of another cluster in the namespace."""
    body = disk_body("pvc-of-another-cluster", "1Gi", STORAGE_CLASS)
    body["metadata"]["labels"] = {labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi"}
    real.dvp.create(r.VIRTUAL_DISK, body, real.ns)
    real.dvp.wait_for(r.VIRTUAL_DISK, "pvc-of-another-cluster", phase_is("Ready"), 30, real.ns)


@pytest.mark.parametrize("victim", ["vm-worker-0-boot", "pvc-of-another-cluster"])
def test_a_pv_naming_a_foreign_disk_is_refused_and_dvp_is_unchanged(real, victim):
    seed_foreign(real)
    c = real.csi.controller
    before = real.state()
    expect_code(C.NOT_FOUND, c.ControllerPublishVolume, publish(victim, node="worker-1"))
    expect_code(C.NOT_FOUND, c.ControllerUnpublishVolume, unpublish(victim))
    expect_code(C.PERMISSION_DENIED, c.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id=victim))
    req = csi_pb2.ControllerExpandVolumeRequest(volume_id=victim)
    req.capacity_range.required_bytes = 100 * GIB
    expect_code(C.NOT_FOUND, c.ControllerExpandVolume, req)
    expect_code(C.NOT_FOUND, c.CreateSnapshot, csi_pb2.CreateSnapshotRequest(name="s", source_volume_id=victim))
    expect_code(C.NOT_FOUND, c.CreateVolume, make("pvc-clone-of-victim", volume=victim))
    expect_code(C.ALREADY_EXISTS, c.CreateVolume, make(victim))
    assert real.state() == before


def test_a_dead_vm_releases_its_volumes(real):
    """VM deleted under an attached volume: the volume attaches on another node; the reaper drops stale VMBDAs."""
    c = real.csi.controller
    for name in ("pvc-moved", "pvc-reaped"):
        c.CreateVolume(make(name))
        c.ControllerPublishVolume(publish(name, node="worker-1"))
    real.dvp.delete(r.VIRTUAL_MACHINE, "vm-worker-1", real.ns)
    # The stale VMBDA of the dead VM is removed first; DVP refuses the new one while the old one terminates, which
    # is ABORTED (the attacher retries).
    try:
        c.ControllerPublishVolume(publish("pvc-moved"))
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.ABORTED, err
        real.dvp.wait_for(r.VMBDA, "vmbda-pvc-moved-vm-worker-1", lambda a: a is None, 30, real.ns)
        c.ControllerPublishVolume(publish("pvc-moved"))
    assert real.names(r.VMBDA) == ["vmbda-pvc-moved-vm-worker-0", "vmbda-pvc-reaped-vm-worker-1"]
    assert real.csi.driver.attachments.reap_dead_vms() == ["vmbda-pvc-reaped-vm-worker-1"]
    assert real.csi.driver.attachments.reap_dead_vms() == []  # being deleted: not deleted twice
    real.dvp.wait_for(r.VMBDA, "vmbda-pvc-reaped-vm-worker-1", lambda a: a is None, 30, real.ns)
    assert real.names(r.VMBDA) == ["vmbda-pvc-moved-vm-worker-0"]
    c.ControllerUnpublishVolume(unpublish("pvc-reaped", node="worker-1"))  # the attacher's late detach: OK


@pytest.mark.tools
def test_csi_sanity_on_the_real_api(dvp_api, tmp_path):
    check_environment()
    loops = LoopDevices(tmp_path / "by-id", tmp_path / "images")
    try:
        for env in sim_env(dvp_api, tmp_path, loops):
            res = run(env.csi.endpoint, tmp_path / "sanity", {"dvpStorageClass": STORAGE_CLASS}, size=64 * MIB,
                      expand_size=128 * MIB)
            env.udev.settled()
            detached = dict(loops.loops)
    finally:
        loops.close()
    assert res.failed == [], res.output
    assert {n: m for n, m in res.skipped.items() if m not in UNADVERTISED} == {}
    areas = {area: [n for n in res.passed if area in n] for area in (
        "Identity Service", "Controller Service", "Node Service", "CreateSnapshot", "ListSnapshots",
        "DeleteSnapshot", "ExpandVolume", "ListVolumes", "ControllerPublishVolume", "ModifyVolume", "GetCapacity",
        "NodeGetVolumeHealth")}
    assert all(areas.values()), {a: len(v) for a, v in areas.items()}
    print(f"csi-sanity on the real API with the DVP simulator: {len(res.passed)} passed, {len(res.skipped)} skipped")
    print("\n".join(f"  skipped: {n} ({m})" for n, m in sorted(res.skipped.items())))
    assert len(res.passed) == 92  # of 103 specs (1 pending upstream, 10 skipped as unadvertised)
    assert detached == {}  # every attached loop device was detached again


@pytest.mark.tools
def test_csi_sanity_modify_volume_moves_disks_waiting_for_a_consumer(dvp_api, tmp_path):
    """csi-sanity's ModifyVolume specs with a VolumeAttributesClass naming another class than the volume's: DVP
    takes a class change of a disk not provisioned yet (WaitForFirstConsumer), so every modify is a real patch."""
    patches: list[str] = []

    def record(info):  # a fault hook that injects nothing: the driver's patches of VirtualDisks
        if info.verb == "patch" and info.resource.startswith("virtualdisks"):
            patches.append(info.name)

    for env in sim_env(dvp_api, tmp_path, faults=record):
        res = run(env.csi.endpoint, tmp_path / "sanity", {"dvpStorageClass": WFFC_CLASS}, size=64 * MIB,
                  expand_size=128 * MIB, mutable={"dvpStorageClass": "wffc"},
                  focus="ModifyVolume|volume attribute class")
        left = [d["metadata"]["name"] for d in env.items(r.VIRTUAL_DISK) if d["metadata"]["name"].startswith("sanity")]
    assert res.failed == [], res.output
    # csi-sanity reports the specs outside the focus as skipped with the bare message "skipped"
    assert {n: m for n, m in res.skipped.items() if m != "skipped"} == {}
    assert sorted(n.removeprefix("[It] ") for n in res.passed) == sorted([
        "Controller Service [Controller Server] CreateVolume should create volume with a volume attribute class",
        "Controller Service [Controller Server] CreateVolume should not create volume with an invalid volume "
        "attribute class",
        "ModifyVolume [Controller Server] should fail if no volume id is given",
        "ModifyVolume [Controller Server] should fail if volume does not exist",
        "ModifyVolume [Controller Server] should fail if specified mutable parameters are not supported by the "
        "volume",
        "ModifyVolume [Controller Server] should modify a volume created without a volume attribute class",
        "ModifyVolume [Controller Server] should modify a volume created with a volume attribute class",
        "ModifyVolume [Controller Server] should fail to modify a volume created with a volume attribute class if "
        "new mutable parameters are not supported by volume"]), res.passed
    # "should modify a volume created without a volume attribute class" moved its disk (one patch); the volume
    # made with the class already has it, and every refused modify changed nothing
    assert len(patches) == 1, patches
    assert left == []  # csi-sanity deleted every volume it made

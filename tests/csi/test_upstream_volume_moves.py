# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A volume the upstream (Go) driver made and attached keeps working after the takeover, on real block devices:
its VolumeAttachment carries no serial, so NodeStage refuses until the attacher publishes it again; then it
stages with the data upstream's pod wrote, moves to another node, grows and is snapshotted.

Two nodes, each with its own device folder (a loop device per hot-plugged disk, `testkit.csi.loopdev`) and its
own node plugin; both loop devices of a disk read the same image, as both VMs would reach the same DVP volume."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from dvp_common.dvp import disk_state
from dvp_common.dvp import resources as r
from dvp_common.kube.resources import NODE as NODE_RES
from dvp_csi.domain import labels
from dvp_csi.generated import csi_pb2
from dvp_csi.os_ops import OsOps
from test_adoption import OURS, put_bound, upstream_labels
from test_node_loop import unmount_under

from sim import serial
from sim.builders import phase_is
from sim.builders import vmbda as vmbda_body
from sim.conditions import SERIAL_ANNOTATION
from testkit.csi import env as csi_env
from testkit.csi.env import NODE, TIMEOUTS, Running
from testkit.csi.loopdev import LoopDevices, check_environment
from testkit.csi.requests import MIB, cap, expect_code, publish, unpublish
from testkit.csi.sim import NODES, STORAGE_CLASS, WAIT, SimEnv, Udev, sim_env
from testkit.recorded import RecordedApi

C = grpc.StatusCode
OTHER = "worker-1"
CLAIM_UID = "5b1d6c1e-7a0f-4c52-9d0e-1f2a3b4c5d6e"  # the claim's, chosen by the guest API server
VOLUME = f"pvc-{CLAIM_UID}"  # upstream named the disk, the volumeHandle and the PV after it
UPSTREAM_VMBDA = f"vmbda-{VOLUME}-{NODE}"  # upstream's: named by the node's hostname


@dataclass
class World:
    env: SimEnv
    guest: RecordedApi
    nodes: dict[str, Running]  # guest node -> its node plugin
    loops: dict[str, LoopDevices]
    udevs: dict[str, Udev]

    @property
    def controller(self):
        return self.env.csi.controller

    def device(self, node: str, uid: str) -> str:
        self.udevs[node].settled()
        return self.loops[node].loops[uid]


@pytest.fixture
def world(dvp_api, tmp_path) -> Iterator[World]:
    check_environment()
    images = tmp_path / "images"
    loops = {n: LoopDevices(tmp_path / n / "by-id", images) for n in (NODE, OTHER)}
    timeouts = dataclasses.replace(TIMEOUTS, device=WAIT)
    guest = RecordedApi()
    for node, vm in NODES.items():
        guest.put(NODE_RES, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node},
                             "spec": {"providerID": f"dvp://{vm}"}})
    udev = None
    try:
        for env in sim_env(dvp_api, tmp_path, loops[NODE], timeouts=timeouts, device_dir=str(loops[NODE].device_dir)):
            env.csi.dvp.guest = guest.client  # what driver.build does with the controller's guest API
            udev = Udev(dvp_api.client(), env.ns, NODES[OTHER], loops[OTHER]).start()
            other = csi_env.make_settings(tmp_path / OTHER, mode="node", node_name=OTHER,
                                          device_dir=str(loops[OTHER].device_dir), timeouts=timeouts)
            for running in csi_env.serve(other, None):
                assert env.udev is not None
                yield World(env, guest, {NODE: env.csi, OTHER: running}, loops, {NODE: env.udev, OTHER: udev})
            assert udev.errors == []
    finally:
        if udev is not None:
            udev.stop()
            udev.client.close()
        unmount_under(tmp_path)
        for lo in loops.values():
            lo.close()


def upstream_attached(w: World, size: str) -> dict:
    """The disk, its bound PV and claim, and the attachment to worker-0's VM, as the upstream driver left them."""
    w.env.put_disk(VOLUME, upstream_labels(VOLUME, ""), size, STORAGE_CLASS)
    put_bound(w.guest, VOLUME, VOLUME)
    body = vmbda_body(UPSTREAM_VMBDA, NODES[NODE], VOLUME)
    body["metadata"]["labels"] = {labels.VMBDA_DISK: VOLUME, labels.VMBDA_VM: NODE}
    w.env.dvp.create(r.VMBDA, body, w.env.ns)
    w.env.wait(r.VMBDA, UPSTREAM_VMBDA, phase_is("Attached"))
    return w.env.wait(r.VIRTUAL_DISK, VOLUME, lambda d: NODES[NODE] in disk_state.attached_vms(d))


def refused_without_serial(w: World, stage: str, block: bool) -> None:
    """What kubelet gets for a VolumeAttachment without attachmentMetadata: no device guessed, one clear line."""
    details = expect_code(C.FAILED_PRECONDITION, w.nodes[NODE].node.NodeStageVolume, csi_pb2.NodeStageVolumeRequest(
        volume_id=VOLUME, staging_target_path=stage, volume_capability=cap(block=block)))
    assert details == (f"volume {VOLUME}: publish_context.serial is missing or malformed; not published by this "
                       "driver yet (the external-attacher publishes it again), retry")
    assert not os.path.ismount(stage)


def published_again(w: World, disk: dict, block: bool) -> dict[str, str]:
    """The attacher's publish of the VolumeAttachment upstream made: the attachment is found and adopted, never
    made twice, and the serial is the one DVP gave the hot-plugged device."""
    ctx = dict(w.controller.ControllerPublishVolume(publish(VOLUME, block=block)).publish_context)
    uid = disk["metadata"]["uid"]
    assert ctx == {"serial": serial(uid)}
    assert ctx["serial"] == w.env.get(r.VIRTUAL_DISK, VOLUME)["metadata"]["annotations"][SERIAL_ANNOTATION]
    [att] = w.env.items(r.VMBDA)
    assert att["metadata"]["name"] == UPSTREAM_VMBDA
    assert att["metadata"]["labels"] == {labels.VMBDA_DISK: VOLUME, labels.VMBDA_VM: NODE, **OURS}
    return ctx


def moved(w: World, disk: dict, block: bool) -> dict[str, str]:
    """Unpublished from upstream's attachment, published to worker-1's VM; same serial (the disk's)."""
    w.controller.ControllerUnpublishVolume(unpublish(VOLUME))
    assert w.env.get(r.VMBDA, UPSTREAM_VMBDA) is None
    w.udevs[NODE].settled()
    assert w.loops[NODE].loops == {}  # gone from worker-0 before it shows up on worker-1
    ctx = dict(w.controller.ControllerPublishVolume(publish(VOLUME, node=OTHER, block=block)).publish_context)
    assert ctx == {"serial": serial(disk["metadata"]["uid"])}
    assert [(a["metadata"]["name"], a["spec"]["virtualMachineName"]) for a in w.env.items(r.VMBDA)] == [
        (f"vmbda-{VOLUME}-{NODES[OTHER]}", NODES[OTHER])]
    return ctx


def snapshotted(w: World) -> None:
    snap = w.controller.CreateSnapshot(csi_pb2.CreateSnapshotRequest(name="snap-upstream", source_volume_id=VOLUME))
    assert snap.snapshot.source_volume_id == VOLUME
    vds = w.env.wait(r.VIRTUAL_DISK_SNAPSHOT, snap.snapshot.snapshot_id, phase_is("Ready"))
    assert vds["spec"]["virtualDiskName"] == VOLUME
    got = w.controller.GetSnapshot(csi_pb2.GetSnapshotRequest(snapshot_id=snap.snapshot.snapshot_id)).snapshot
    assert (got.source_volume_id, got.ready_to_use) == (VOLUME, True)


def test_an_upstream_filesystem_volume_stages_after_the_attacher_publishes_it_again_and_moves(world, tmp_path):
    w = world
    disk = upstream_attached(w, "64Mi")
    uid = disk["metadata"]["uid"]
    # upstream's node plugin formatted the device and its pod wrote there (upstream mounts the device directly)
    device = w.device(NODE, uid)
    OsOps().mkfs(device, "ext4")
    upstream_mount = tmp_path / "upstream-pod"
    upstream_mount.mkdir()
    subprocess.run(["mount", device, str(upstream_mount)], check=True)
    (upstream_mount / "data").write_text("written under upstream")
    subprocess.run(["umount", str(upstream_mount)], check=True)

    stage, target = str(tmp_path / "stage-0"), str(tmp_path / "pods/a/vol")
    refused_without_serial(w, stage, block=False)
    ctx = published_again(w, disk, block=False)
    node0 = w.nodes[NODE].node
    node0.NodeStageVolume(csi_pb2.NodeStageVolumeRequest(volume_id=VOLUME, staging_target_path=stage,
                                                         volume_capability=cap(), publish_context=ctx))
    node0.NodePublishVolume(csi_pb2.NodePublishVolumeRequest(volume_id=VOLUME, staging_target_path=stage,
                                                             target_path=target, volume_capability=cap(),
                                                             publish_context=ctx))
    assert Path(target, "data").read_text() == "written under upstream"  # not reformatted
    node0.NodeUnpublishVolume(csi_pb2.NodeUnpublishVolumeRequest(volume_id=VOLUME, target_path=target))
    node0.NodeUnstageVolume(csi_pb2.NodeUnstageVolumeRequest(volume_id=VOLUME, staging_target_path=stage))

    ctx = moved(w, disk, block=False)
    stage1, target1 = str(tmp_path / "stage-1"), str(tmp_path / "pods/b/vol")
    node1 = w.nodes[OTHER].node
    node1.NodeStageVolume(csi_pb2.NodeStageVolumeRequest(volume_id=VOLUME, staging_target_path=stage1,
                                                         volume_capability=cap(), publish_context=ctx))
    node1.NodePublishVolume(csi_pb2.NodePublishVolumeRequest(volume_id=VOLUME, staging_target_path=stage1,
                                                             target_path=target1, volume_capability=cap(),
                                                             publish_context=ctx))
    assert Path(target1, "data").read_text() == "written under upstream"
    assert OsOps().mount_source(stage1) == w.device(OTHER, uid)
    snapshotted(w)


def test_an_upstream_block_volume_moves_grows_and_is_snapshotted(world, tmp_path):
    # raw block: NodeExpandVolume reads the grown device itself (online ext4 growth needs CAP_SYS_RESOURCE, which
    # this machine's container lacks; test_node_loop runs resize2fs offline)
    w = world
    disk = upstream_attached(w, "32Mi")
    uid = disk["metadata"]["uid"]
    with open(w.device(NODE, uid), "r+b") as dev:  # what upstream's pod wrote to its raw device
        dev.seek(MIB)
        dev.write(b"upstream block data")
        dev.flush()
        os.fsync(dev.fileno())  # into the image both nodes' loop devices read

    target = str(tmp_path / "pods/a/dev")
    expect_code(C.FAILED_PRECONDITION, w.nodes[NODE].node.NodePublishVolume, csi_pb2.NodePublishVolumeRequest(
        volume_id=VOLUME, staging_target_path=str(tmp_path / "stage-0"), target_path=target,
        volume_capability=cap(block=True)), match=f"volume {VOLUME}: publish_context.serial is missing")
    assert not os.path.exists(target)
    published_again(w, disk, block=True)

    ctx = moved(w, disk, block=True)
    stage1, target1 = str(tmp_path / "stage-1"), str(tmp_path / "pods/b/dev")
    node1 = w.nodes[OTHER].node
    node1.NodeStageVolume(csi_pb2.NodeStageVolumeRequest(volume_id=VOLUME, staging_target_path=stage1,
                                                         volume_capability=cap(block=True), publish_context=ctx))
    node1.NodePublishVolume(csi_pb2.NodePublishVolumeRequest(volume_id=VOLUME, staging_target_path=stage1,
                                                             target_path=target1, volume_capability=cap(block=True),
                                                             publish_context=ctx))
    with open(target1, "rb") as dev:
        dev.seek(MIB)
        assert dev.read(19) == b"upstream block data"

    req = csi_pb2.ControllerExpandVolumeRequest(volume_id=VOLUME, volume_capability=cap(block=True))
    req.capacity_range.required_bytes = 64 * MIB
    grown = w.controller.ControllerExpandVolume(req)
    assert (grown.capacity_bytes, grown.node_expansion_required) == (64 * MIB, False)
    w.env.wait(r.VIRTUAL_DISK, VOLUME, lambda d: disk_state.capacity_bytes(d) == 64 * MIB)
    w.udevs[OTHER].settled()  # DVP grew the disk; the hot-plugged device follows
    expanded = node1.NodeExpandVolume(csi_pb2.NodeExpandVolumeRequest(
        volume_id=VOLUME, volume_path=target1, staging_target_path=stage1, volume_capability=cap(block=True)))
    assert expanded.capacity_bytes == 64 * MIB
    snapshotted(w)
    node1.NodeUnpublishVolume(csi_pb2.NodeUnpublishVolumeRequest(volume_id=VOLUME, target_path=target1))
    assert not os.path.exists(target1)

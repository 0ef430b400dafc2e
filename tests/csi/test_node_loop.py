# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The whole volume life on real block devices: loop devices stand in for DVP's hot-plugged SCSI disks, and the
node plugin really formats, mounts, bind-mounts, grows and unmounts (needs root; fails clearly otherwise)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from dvp_csi.generated import csi_pb2
from dvp_csi.os_ops import OsOps

from testkit.csi.env import NODE, TIMEOUTS, Running
from testkit.csi.loopdev import LoopDevices, check_environment
from testkit.csi.requests import AM, MIB, cap
from testkit.csi.requests import create as create_request
from testkit.csi.sim import STORAGE_CLASS, WAIT, SimEnv, sim_env


def create(name, **kw):
    return create_request(name, sc=STORAGE_CLASS, **kw)


@pytest.fixture
def world(dvp_api, tmp_path) -> Iterator[tuple[Running, LoopDevices, SimEnv]]:
    """DVP hot-plugs (the simulator attaches, csi_sim's udev backs the disk with a loop device)."""
    check_environment()
    loops = LoopDevices(tmp_path / "by-id", tmp_path / "images")
    try:
        for env in sim_env(dvp_api, tmp_path, loops, nodes={NODE: "vm-worker-0"},
                           timeouts=dataclasses.replace(TIMEOUTS, device=WAIT)):
            yield env.csi, loops, env
    finally:
        unmount_under(tmp_path)
        loops.close()


def unmount_under(root: Path) -> None:
    with open("/proc/self/mounts") as f:
        points = [line.split()[1] for line in f if line.split()[1].startswith(str(root))]
    for point in sorted(points, reverse=True):
        subprocess.run(["umount", point], capture_output=True, check=False)


def test_filesystem_volume_life(world, tmp_path):
    r, loops, env = world
    stage, target, ro_target = str(tmp_path / "stage"), str(tmp_path / "pods/a/vol"), str(tmp_path / "pods/b/vol")
    vol = r.controller.CreateVolume(create("pvc-life", required=64 * MIB)).volume
    ctx = r.controller.ControllerPublishVolume(csi_pb2.ControllerPublishVolumeRequest(
        volume_id=vol.volume_id, node_id=NODE, volume_capability=cap())).publish_context
    r.node.NodeStageVolume(csi_pb2.NodeStageVolumeRequest(volume_id=vol.volume_id, staging_target_path=stage,
                                                          volume_capability=cap(), publish_context=ctx))
    [device] = loops.loops.values()
    assert subprocess.run(["blkid", "-s", "TYPE", "-o", "value", device], capture_output=True, text=True,
                          check=True).stdout.strip() == "ext4"
    pub = dict(volume_id=vol.volume_id, staging_target_path=stage, publish_context=ctx)
    r.node.NodePublishVolume(csi_pb2.NodePublishVolumeRequest(target_path=target, volume_capability=cap(), **pub))
    with open(os.path.join(target, "data"), "w") as f:
        f.write("kept")
    r.node.NodePublishVolume(csi_pb2.NodePublishVolumeRequest(
        target_path=ro_target, volume_capability=cap(AM.SINGLE_NODE_READER_ONLY), **pub))
    with pytest.raises(OSError, match="Read-only file system"):
        Path(ro_target, "other").write_text("x")
    assert Path(ro_target, "data").read_text() == "kept"

    stats = r.node.NodeGetVolumeStats(csi_pb2.NodeGetVolumeStatsRequest(volume_id=vol.volume_id, volume_path=target))
    total = stats.usage[0].total
    assert 50 * MIB < total <= 64 * MIB and stats.usage[1].unit == csi_pb2.VolumeUsage.INODES

    req = csi_pb2.ControllerExpandVolumeRequest(volume_id=vol.volume_id, volume_capability=cap())
    req.capacity_range.required_bytes = 128 * MIB
    assert r.controller.ControllerExpandVolume(req).node_expansion_required
    env.udev.settled()  # DVP grew the disk; the hot-plugged device follows
    # the device grew under the mounted filesystem (online ext4 growth itself needs CAP_SYS_RESOURCE, which this
    # machine's container lacks: test_offline_grow below runs the same resize2fs call on an unmounted disk)
    assert OsOps().block_size(device) == 128 * MIB

    for t in (target, ro_target):
        r.node.NodeUnpublishVolume(csi_pb2.NodeUnpublishVolumeRequest(volume_id=vol.volume_id, target_path=t))
        assert not os.path.exists(t)
    r.node.NodeUnstageVolume(csi_pb2.NodeUnstageVolumeRequest(volume_id=vol.volume_id, staging_target_path=stage))
    assert not os.path.ismount(stage)
    # staged again after a reboot-like unstage: the data is still there, the disk is not reformatted
    r.node.NodeStageVolume(csi_pb2.NodeStageVolumeRequest(volume_id=vol.volume_id, staging_target_path=stage,
                                                          volume_capability=cap(), publish_context=ctx))
    assert Path(stage, "data").read_text() == "kept"
    r.node.NodeUnstageVolume(csi_pb2.NodeUnstageVolumeRequest(volume_id=vol.volume_id, staging_target_path=stage))
    r.controller.ControllerUnpublishVolume(csi_pb2.ControllerUnpublishVolumeRequest(volume_id=vol.volume_id,
                                                                                    node_id=NODE))
    env.udev.settled()
    assert loops.loops == {}


def test_raw_block_volume(world, tmp_path):
    r, loops, env = world
    target = str(tmp_path / "pods/c/dev")
    vol = r.controller.CreateVolume(create("pvc-raw", required=32 * MIB, caps=[cap(block=True)])).volume
    ctx = r.controller.ControllerPublishVolume(csi_pb2.ControllerPublishVolumeRequest(
        volume_id=vol.volume_id, node_id=NODE, volume_capability=cap(block=True))).publish_context
    stage = str(tmp_path / "stage")
    r.node.NodeStageVolume(csi_pb2.NodeStageVolumeRequest(volume_id=vol.volume_id, staging_target_path=stage,
                                                          volume_capability=cap(block=True), publish_context=ctx))
    r.node.NodePublishVolume(csi_pb2.NodePublishVolumeRequest(
        volume_id=vol.volume_id, staging_target_path=stage, target_path=target, volume_capability=cap(block=True),
        publish_context=ctx))
    size = int(subprocess.run(["blockdev", "--getsize64", target], capture_output=True, text=True,
                              check=True).stdout)
    assert size == 32 * MIB
    stats = r.node.NodeGetVolumeStats(csi_pb2.NodeGetVolumeStatsRequest(volume_id=vol.volume_id, volume_path=target))
    assert [(u.unit, u.total) for u in stats.usage] == [(csi_pb2.VolumeUsage.BYTES, 32 * MIB)]
    r.node.NodeUnpublishVolume(csi_pb2.NodeUnpublishVolumeRequest(volume_id=vol.volume_id, target_path=target))
    assert not os.path.exists(target)


def test_offline_grow_and_filesystem_probe(tmp_path):
    check_environment()
    image = tmp_path / "disk.img"
    with open(image, "wb") as f:
        f.truncate(32 * MIB)
    loop = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True, text=True,
                          check=True).stdout.strip()
    try:
        ops = OsOps()
        assert ops.fs_type(loop) == ""
        ops.mkfs(loop, "ext4")
        assert ops.fs_type(loop) == "ext4"
        with open(image, "r+b") as f:
            f.truncate(96 * MIB)
        subprocess.run(["losetup", "-c", loop], check=True)
        ops.resize_fs(loop, "ext4", "")
        dumpe2fs = subprocess.run(["dumpe2fs", "-h", loop], capture_output=True, text=True, check=True).stdout
        fields = dict(line.split(":", 1) for line in dumpe2fs.splitlines() if ":" in line)
        assert int(fields["Block count"]) * int(fields["Block size"]) == 96 * MIB
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)


def node_health(r: Running, volume_id: str, target: str, stage: str) -> list[tuple[str, str]]:
    vh = r.node.NodeGetVolumeHealth(csi_pb2.NodeGetVolumeHealthRequest(
        volume_id=volume_id, volume_publish_path=target, staging_target_path=stage)).volume_health
    return [(e.reason, e.message) for e in vh.health_statuses]


def test_volume_health_on_real_mounts_and_devices(world, tmp_path):
    r, loops, env = world
    stage, target, raw = str(tmp_path / "stage"), str(tmp_path / "pods/h/vol"), str(tmp_path / "pods/h/dev")
    vols = {}
    for name, block in (("pvc-fs", False), ("pvc-dev", True)):
        vol = r.controller.CreateVolume(create(name, required=32 * MIB, caps=[cap(block=block)])).volume
        ctx = r.controller.ControllerPublishVolume(csi_pb2.ControllerPublishVolumeRequest(
            volume_id=vol.volume_id, node_id=NODE, volume_capability=cap(block=block))).publish_context
        vols[name] = (vol.volume_id, ctx)
    fs_id, fs_ctx = vols["pvc-fs"]
    r.node.NodeStageVolume(csi_pb2.NodeStageVolumeRequest(volume_id=fs_id, staging_target_path=stage,
                                                          volume_capability=cap(), publish_context=fs_ctx))
    r.node.NodePublishVolume(csi_pb2.NodePublishVolumeRequest(volume_id=fs_id, staging_target_path=stage,
                                                              target_path=target, volume_capability=cap(),
                                                              publish_context=fs_ctx))
    dev_id, dev_ctx = vols["pvc-dev"]
    r.node.NodePublishVolume(csi_pb2.NodePublishVolumeRequest(
        volume_id=dev_id, staging_target_path=str(tmp_path / "stage-dev"), target_path=raw,
        volume_capability=cap(block=True), publish_context=dev_ctx))
    # the real devices are there (/sys/dev/block knows their numbers): healthy
    assert node_health(r, fs_id, target, stage) == []
    assert node_health(r, dev_id, raw, str(tmp_path / "stage-dev")) == []

    subprocess.run(["umount", target], check=True)  # the pod's mount lost behind the plugin's back
    assert node_health(r, fs_id, target, stage) == [
        ("NotMounted", f"volume {fs_id}: publish path {target} is not mounted")]
    subprocess.run(["umount", raw], check=True)
    assert node_health(r, dev_id, raw, "") == [("NotMounted", f"volume {dev_id}: publish path {raw} is not mounted")]
    r.node.NodeUnstageVolume(csi_pb2.NodeUnstageVolumeRequest(volume_id=fs_id, staging_target_path=stage))
    os.rmdir(target)
    assert node_health(r, fs_id, target, stage) == [
        ("PathMissing", f"volume {fs_id}: publish path {target} does not exist"),
        ("NotMounted", f"volume {fs_id}: staging path {stage} is not mounted")]

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Node service on a fake OS layer: exact OS calls and codes (the node plugin needs no DVP access)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from csi_fake_os import FakeOs
from dvp_csi.domain import names
from dvp_csi.generated import csi_pb2

from testkit.csi.env import NODE, Running, make_settings, serve
from testkit.csi.requests import AM, cap, expect_code
from testkit.csi.sim import sim_env

C = grpc.StatusCode
SERIAL = "0123456789abcdef0123456789abcdef"
STAGE, TARGET = "/var/lib/kubelet/stage/pvc-n", "/var/lib/kubelet/pods/p/volumes/pvc-n"


@pytest.fixture
def fake_os() -> FakeOs:
    return FakeOs()


@pytest.fixture
def node(tmp_path, fake_os) -> Iterator[Running]:
    yield from serve(make_settings(tmp_path, mode="node"), None, fake_os)


def link(r: Running) -> str:
    return names.device_link(r.settings.device_dir, SERIAL)


def stage(fs="", block=False, serial=SERIAL, flags=()):
    c = cap(block=block, fs=fs)
    if not block:
        c.mount.mount_flags.extend(flags)
    return csi_pb2.NodeStageVolumeRequest(volume_id="pvc-n", staging_target_path=STAGE, volume_capability=c,
                                          publish_context={"serial": serial} if serial else {})


def publish(block=False, readonly=False, mode=AM.SINGLE_NODE_WRITER):
    return csi_pb2.NodePublishVolumeRequest(volume_id="pvc-n", staging_target_path=STAGE, target_path=TARGET,
                                            volume_capability=cap(mode=mode, block=block), readonly=readonly,
                                            publish_context={"serial": SERIAL})


def test_stage_formats_an_empty_disk_once_and_mounts_it(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb")
    node.node.NodeStageVolume(stage(flags=["noatime"]))
    assert fake_os.calls == [("fs_type", "/dev/sdb"), ("mkfs", "/dev/sdb", "ext4"),
                             ("mount", "/dev/sdb", STAGE, "ext4", ("noatime",))]
    fake_os.calls.clear()
    node.node.NodeStageVolume(stage())  # already staged: nothing to do
    assert fake_os.calls == []


def test_stage_never_reformats_a_disk_with_data(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb", fs="xfs")
    node.node.NodeStageVolume(stage(fs="xfs"))
    assert fake_os.calls == [("fs_type", "/dev/sdb"), ("mount", "/dev/sdb", STAGE, "xfs", ("nouuid",))]
    node.node.NodeUnstageVolume(csi_pb2.NodeUnstageVolumeRequest(volume_id="pvc-n", staging_target_path=STAGE))
    fake_os.calls.clear()
    expect_code(C.FAILED_PRECONDITION, node.node.NodeStageVolume, stage(fs="ext4"), "holds xfs, asked for ext4")
    assert ("mkfs", "/dev/sdb", "ext4") not in fake_os.calls


def test_stage_errors(node, fake_os):
    expect_code(C.FAILED_PRECONDITION, node.node.NodeStageVolume, stage(serial=""), "publish_context.serial")
    expect_code(C.FAILED_PRECONDITION, node.node.NodeStageVolume, stage(serial="../../etc"), "malformed")
    expect_code(C.NOT_FOUND, node.node.NodeStageVolume, stage(), "did not appear")
    expect_code(C.INVALID_ARGUMENT, node.node.NodeStageVolume, stage(fs="ntfs"), "fs_type 'ntfs'")
    expect_code(C.INVALID_ARGUMENT, node.node.NodeStageVolume,
                csi_pb2.NodeStageVolumeRequest(volume_id="pvc-n", volume_capability=cap()),
                "staging_target_path is required")
    fake_os.add_disk(link(node), "/dev/sdb")
    fake_os.mount_table[STAGE] = "/dev/sdz"
    expect_code(C.ALREADY_EXISTS, node.node.NodeStageVolume, stage(), "already holds /dev/sdz")
    assert fake_os.calls == []


def test_stage_block_does_nothing(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb")
    node.node.NodeStageVolume(stage(block=True))
    assert fake_os.calls == []


@pytest.mark.parametrize(("readonly", "mode", "ro"), [
    (False, AM.SINGLE_NODE_WRITER, False), (True, AM.SINGLE_NODE_WRITER, True),
    (False, AM.SINGLE_NODE_READER_ONLY, True)])
def test_publish_bind_mounts_the_staging_path_honouring_read_only(node, fake_os, readonly, mode, ro):
    fake_os.add_disk(link(node), "/dev/sdb", fs="ext4")
    node.node.NodeStageVolume(stage())
    fake_os.calls.clear()
    node.node.NodePublishVolume(publish(readonly=readonly, mode=mode))
    assert fake_os.calls == [("bind_mount", STAGE, TARGET, ro)]
    node.node.NodePublishVolume(publish(readonly=readonly, mode=mode))  # idempotent
    assert len(fake_os.calls) == 1


def test_publish_block_binds_the_device(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb")
    node.node.NodePublishVolume(publish(block=True))
    assert fake_os.calls == [("bind_mount", "/dev/sdb", TARGET, False)]
    assert TARGET in fake_os.paths


def test_publish_unstaged_is_failed_precondition(node, fake_os):
    expect_code(C.FAILED_PRECONDITION, node.node.NodePublishVolume, publish(), "not staged")


def test_unpublish_and_unstage_are_idempotent(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb", fs="ext4")
    node.node.NodeStageVolume(stage())
    node.node.NodePublishVolume(publish())
    fake_os.calls.clear()
    req = csi_pb2.NodeUnpublishVolumeRequest(volume_id="pvc-n", target_path=TARGET)
    node.node.NodeUnpublishVolume(req)
    node.node.NodeUnpublishVolume(req)
    unstage = csi_pb2.NodeUnstageVolumeRequest(volume_id="pvc-n", staging_target_path=STAGE)
    node.node.NodeUnstageVolume(unstage)
    node.node.NodeUnstageVolume(unstage)
    assert fake_os.calls == [("umount", TARGET), ("remove", TARGET), ("remove", TARGET), ("umount", STAGE)]


def test_stats(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb", fs="ext4")
    node.node.NodeStageVolume(stage())
    node.node.NodePublishVolume(publish())
    U = csi_pb2.VolumeUsage
    resp = node.node.NodeGetVolumeStats(csi_pb2.NodeGetVolumeStatsRequest(volume_id="pvc-n", volume_path=TARGET))
    assert list(resp.usage) == [U(unit=U.BYTES, total=100, available=60, used=40),
                                U(unit=U.INODES, total=10, available=7, used=3)]
    expect_code(C.NOT_FOUND, node.node.NodeGetVolumeStats,
                csi_pb2.NodeGetVolumeStatsRequest(volume_id="pvc-n", volume_path="/nowhere"), "does not exist")


def test_expand_grows_the_filesystem_of_the_mounted_device(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb", fs="ext4", size=5 << 30)
    node.node.NodeStageVolume(stage())
    node.node.NodePublishVolume(publish())
    fake_os.calls.clear()
    resp = node.node.NodeExpandVolume(csi_pb2.NodeExpandVolumeRequest(volume_id="pvc-n", volume_path=TARGET))
    assert resp.capacity_bytes == 5 << 30
    assert fake_os.calls == [("fs_type", "/dev/sdb"), ("resize_fs", "/dev/sdb", "ext4", TARGET)]
    expect_code(C.NOT_FOUND, node.node.NodeExpandVolume,
                csi_pb2.NodeExpandVolumeRequest(volume_id="pvc-n", volume_path="/nowhere"))


@pytest.mark.parametrize(("static_disks", "max_volumes"), [(3, 13), (16, 1)])  # 16 - static, never zero
def test_node_info_counts_the_vm_static_disks(dvp_api, tmp_path, fake_os, static_disks, max_volumes):
    for env in sim_env(dvp_api, tmp_path, nodes={}, os_ops=fake_os, mode="node"):
        env.add_vm("vm-worker-0", NODE, static_disks=static_disks)
        info = env.csi.node.NodeGetInfo(csi_pb2.NodeGetInfoRequest())
        assert (info.node_id, info.max_volumes_per_node) == (NODE, max_volumes)


def test_node_capabilities(node):
    caps = {c.rpc.type for c in node.node.NodeGetCapabilities(csi_pb2.NodeGetCapabilitiesRequest()).capabilities}
    R = csi_pb2.NodeServiceCapability.RPC
    assert caps == {R.STAGE_UNSTAGE_VOLUME, R.GET_VOLUME_STATS, R.EXPAND_VOLUME, R.GET_VOLUME_HEALTH}


def test_node_info_without_dvp_access_assumes_the_boot_disk(node):
    info = node.node.NodeGetInfo(csi_pb2.NodeGetInfoRequest())
    assert info.max_volumes_per_node == 15
    # one segment for the whole project (the provisioner's capacity tracking needs a key; test_sidecars_capacity)
    assert dict(info.accessible_topology.segments) == {"topology.csi.dvp.deckhouse.io/scope": "project"}


def health(r: Running, publish_path: str = TARGET, staging: str = STAGE) -> list[tuple[str, str, str]]:
    vh = r.node.NodeGetVolumeHealth(csi_pb2.NodeGetVolumeHealthRequest(
        volume_id="pvc-n", volume_publish_path=publish_path, staging_target_path=staging)).volume_health
    assert vh.volume_id == "pvc-n"
    return [(csi_pb2.VolumeHealthErrorType.Name(e.status), e.reason, e.message) for e in vh.health_statuses]


def test_volume_health_is_advertised(node):
    caps = {c.rpc.type for c in node.node.NodeGetCapabilities(csi_pb2.NodeGetCapabilitiesRequest()).capabilities}
    assert csi_pb2.NodeServiceCapability.RPC.GET_VOLUME_HEALTH in caps


def test_health_of_a_mounted_volume_and_of_its_lost_mount_or_disk(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb", fs="ext4")
    node.node.NodeStageVolume(stage())
    node.node.NodePublishVolume(publish())
    assert health(node) == []
    fake_os.calls.clear()

    fake_os.unplugged.add("/dev/sdb")  # hot-unplugged under its mounts
    assert health(node) == [
        ("INACCESSIBLE", "DeviceMissing", f"volume pvc-n: publish path {TARGET}: its disk is gone from the node"),
        ("INACCESSIBLE", "DeviceMissing", f"volume pvc-n: staging path {STAGE}: its disk is gone from the node")]
    fake_os.unplugged.clear()

    del fake_os.mount_table[TARGET]  # unmounted behind the plugin's back
    assert health(node) == [("INACCESSIBLE", "NotMounted", f"volume pvc-n: publish path {TARGET} is not mounted")]
    fake_os.paths.discard(TARGET)
    assert health(node, staging="") == [
        ("INACCESSIBLE", "PathMissing", f"volume pvc-n: publish path {TARGET} does not exist")]
    assert fake_os.calls == []  # health only looks


def test_health_of_a_raw_block_volume_ignores_its_staging_directory(node, fake_os):
    fake_os.add_disk(link(node), "/dev/sdb")
    node.node.NodeStageVolume(stage(block=True))
    node.node.NodePublishVolume(publish(block=True))
    assert health(node) == []  # the staging directory of a block volume is never a mount
    fake_os.unplugged.add("/dev/sdb")
    assert health(node) == [
        ("INACCESSIBLE", "DeviceMissing", f"volume pvc-n: publish path {TARGET}: its disk is gone from the node")]


def test_health_without_paths_is_healthy_and_without_volume_id_invalid(node):
    assert health(node, publish_path="", staging="") == []
    expect_code(C.INVALID_ARGUMENT, node.node.NodeGetVolumeHealth, csi_pb2.NodeGetVolumeHealthRequest(),
                "volume_id is required")

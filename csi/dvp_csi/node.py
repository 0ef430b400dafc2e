# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Node service: find the disk by its serial, format only if empty, stage, bind-publish, stats, grow.

The node needs no DVP access: ControllerPublish hands the disk serial over in publish_context.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import grpc

from .domain import names
from .domain.capabilities import fs_type, require_supported
from .domain.errors import CsiError, not_found
from .domain.node_health import PathState, path_entries, paths_to_check
from .domain.topology import SEGMENT
from .generated import csi_pb2, csi_pb2_grpc
from .locks import TryLocks
from .os_ops import OsError, OsOps
from .rpc import handler, require
from .settings import Settings
from .volume_health import to_proto

log = logging.getLogger(__name__)
NodeCap = csi_pb2.NodeServiceCapability.RPC
# GET_VOLUME_HEALTH: CSI 1.13's NodeGetVolumeHealth, which replaced the removed VOLUME_CONDITION of
# NodeGetVolumeStats (kubelet >= 1.37 asks it)
CAPABILITIES = (NodeCap.STAGE_UNSTAGE_VOLUME, NodeCap.GET_VOLUME_STATS, NodeCap.EXPAND_VOLUME,
                NodeCap.GET_VOLUME_HEALTH)
SERIAL_KEY = names.SERIAL_KEY
_SERIAL = re.compile(r"^[0-9a-f]{32}$")
READ_ONLY = csi_pb2.VolumeCapability.AccessMode.SINGLE_NODE_READER_ONLY
UNKNOWN_STATIC_DISKS = 1  # the boot disk, when the VM cannot be read


def _os_call(what: str, fn: Callable[[], object]) -> object:
    try:
        return fn()
    except (OsError, OSError) as exc:
        raise CsiError(grpc.StatusCode.INTERNAL, f"{what}: {exc}") from exc


class NodeServicer(csi_pb2_grpc.NodeServicer):
    def __init__(self, settings: Settings, os_ops: OsOps, locks: TryLocks,
                 static_disks: Callable[[], int | None] | None = None) -> None:
        self.s = settings
        self.os = os_ops
        self.locks = locks
        self._static_disks = static_disks

    # -- helpers --------------------------------------------------------------------------------------------
    def _device(self, volume_id: str, publish_context) -> str:
        serial = publish_context.get(SERIAL_KEY, "")
        # Without the serial the device is unknown: the node holds no DVP access to read the disk's uid, and no
        # other link on the node proves which disk is the volume's. A volume the upstream driver attached (its
        # VolumeAttachment has no attachmentMetadata) gets it once the external-attacher publishes it again,
        # which it does when ListVolumes does not list the node yet (the attachment is adopted then).
        if not _SERIAL.match(serial):
            raise CsiError(grpc.StatusCode.FAILED_PRECONDITION,
                           f"volume {volume_id}: publish_context.{SERIAL_KEY} is missing or malformed; not "
                           "published by this driver yet (the external-attacher publishes it again), retry")
        link = names.device_link(self.s.device_dir, serial)
        if not self.os.wait_for(link, self.s.timeouts.device):
            raise not_found(f"volume {volume_id}: device {link} did not appear within {self.s.timeouts.device:g}s")
        return self.os.realpath(link)

    # -- RPCs -----------------------------------------------------------------------------------------------
    @handler
    def NodeGetCapabilities(self, request, context):  # noqa: N802
        return csi_pb2.NodeGetCapabilitiesResponse(capabilities=[
            csi_pb2.NodeServiceCapability(rpc=csi_pb2.NodeServiceCapability.RPC(type=c)) for c in CAPABILITIES])

    @handler
    def NodeGetInfo(self, request, context):  # noqa: N802
        static = self._static_disks() if self._static_disks else None
        if static is None:
            static = UNKNOWN_STATIC_DISKS
        # 0 would mean "unlimited" to Kubernetes, so never report less than 1
        return csi_pb2.NodeGetInfoResponse(node_id=self.s.node_name,
                                           max_volumes_per_node=max(1, self.s.max_block_devices - static),
                                           accessible_topology=csi_pb2.Topology(segments=SEGMENT))

    @handler
    def NodeStageVolume(self, request, context):  # noqa: N802
        require(request, "volume_id", "staging_target_path", "volume_capability")
        cap = request.volume_capability
        require_supported([cap], "volume_capability")
        with self.locks.hold(f"node/{request.volume_id}"):
            device = self._device(request.volume_id, request.publish_context)
            if cap.HasField("block"):
                return csi_pb2.NodeStageVolumeResponse()  # raw block is published straight from the device
            staging, fs = request.staging_target_path, fs_type(cap)
            if self.os.is_mountpoint(staging):
                src = self.os.mount_source(staging)
                if src != device:
                    raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                                   f"volume {request.volume_id}: {staging} already holds {src}, not {device}")
                return csi_pb2.NodeStageVolumeResponse()
            existing = _os_call(f"volume {request.volume_id}: reading {device}", lambda: self.os.fs_type(device))
            if not existing:
                log.info("formatting %s (volume %s) as %s", device, request.volume_id, fs)
                _os_call(f"volume {request.volume_id}: mkfs", lambda: self.os.mkfs(device, fs))
            elif existing != fs:
                raise CsiError(grpc.StatusCode.FAILED_PRECONDITION,
                               f"volume {request.volume_id}: holds {existing}, asked for {fs}; not reformatting")
            options = list(cap.mount.mount_flags)
            if fs == "xfs":
                options.append("nouuid")  # restored copies share the source's UUID
            _os_call(f"volume {request.volume_id}: mkdir", lambda: self.os.makedirs(staging))
            _os_call(f"volume {request.volume_id}: mount", lambda: self.os.mount(device, staging, fs, options))
        return csi_pb2.NodeStageVolumeResponse()

    @handler
    def NodeUnstageVolume(self, request, context):  # noqa: N802
        require(request, "volume_id", "staging_target_path")
        with self.locks.hold(f"node/{request.volume_id}"):
            path = request.staging_target_path
            if self.os.is_mountpoint(path):
                _os_call(f"volume {request.volume_id}: umount", lambda: self.os.umount(path))
        return csi_pb2.NodeUnstageVolumeResponse()

    @handler
    def NodePublishVolume(self, request, context):  # noqa: N802
        require(request, "volume_id", "staging_target_path", "target_path", "volume_capability")
        cap = request.volume_capability
        require_supported([cap], "volume_capability")
        ro = request.readonly or cap.access_mode.mode == READ_ONLY
        target = request.target_path
        with self.locks.hold(f"node/{request.volume_id}/{target}"):
            if self.os.is_mountpoint(target):
                return csi_pb2.NodePublishVolumeResponse()
            if cap.HasField("block"):
                source = self._device(request.volume_id, request.publish_context)
                _os_call(f"volume {request.volume_id}: target", lambda: self.os.make_file(target))
            else:
                source = request.staging_target_path
                if not self.os.is_mountpoint(source):
                    raise CsiError(grpc.StatusCode.FAILED_PRECONDITION,
                                   f"volume {request.volume_id}: not staged at {source}")
                _os_call(f"volume {request.volume_id}: target", lambda: self.os.makedirs(target))
            _os_call(f"volume {request.volume_id}: bind mount", lambda: self.os.bind_mount(source, target, ro))
        return csi_pb2.NodePublishVolumeResponse()

    @handler
    def NodeUnpublishVolume(self, request, context):  # noqa: N802
        require(request, "volume_id", "target_path")
        target = request.target_path
        with self.locks.hold(f"node/{request.volume_id}/{target}"):
            if self.os.is_mountpoint(target):
                _os_call(f"volume {request.volume_id}: umount", lambda: self.os.umount(target))
            _os_call(f"volume {request.volume_id}: remove target", lambda: self.os.remove(target))
        return csi_pb2.NodeUnpublishVolumeResponse()

    @handler
    def NodeGetVolumeStats(self, request, context):  # noqa: N802
        require(request, "volume_id", "volume_path")
        path = request.volume_path
        if not self.os.exists(path):
            raise not_found(f"volume {request.volume_id}: path {path} does not exist")
        Unit = csi_pb2.VolumeUsage
        if self.os.is_block_device(path):
            size = _os_call(f"volume {request.volume_id}: size", lambda: self.os.block_size(path))
            return csi_pb2.NodeGetVolumeStatsResponse(usage=[Unit(unit=Unit.BYTES, total=size)])
        if not self.os.is_mountpoint(path):
            raise not_found(f"volume {request.volume_id}: {path} is not a mounted volume")
        u = _os_call(f"volume {request.volume_id}: statfs", lambda: self.os.usage(path))
        return csi_pb2.NodeGetVolumeStatsResponse(usage=[
            Unit(unit=Unit.BYTES, total=u.total, available=u.available, used=u.used),
            Unit(unit=Unit.INODES, total=u.inodes, available=u.inodes_free, used=u.inodes_used)])

    @handler
    def NodeGetVolumeHealth(self, request, context):  # noqa: N802
        require(request, "volume_id")
        publish, staging = (self._probe(role, path) if path else None for role, path in (
            ("publish", request.volume_publish_path), ("staging", request.staging_target_path)))
        entries = path_entries(request.volume_id, paths_to_check(publish, staging))
        return csi_pb2.NodeGetVolumeHealthResponse(volume_health=to_proto(request.volume_id, entries))

    def _probe(self, role: str, path: str) -> PathState:
        if not self.os.exists(path):
            return PathState(role, path, False, False, False, None)
        block, mounted = self.os.is_block_device(path), self.os.is_mountpoint(path)
        disk_backed = block or (mounted and (self.os.mount_source(path) or "").startswith("/dev/"))
        try:
            present = self.os.device_present(path) if disk_backed else None
        except OSError:
            present = False  # the path went meanwhile, or its device cannot be read
        return PathState(role, path, True, block, mounted, present)

    @handler
    def NodeExpandVolume(self, request, context):  # noqa: N802
        require(request, "volume_id", "volume_path")
        path = request.volume_path
        if not self.os.exists(path):
            raise not_found(f"volume {request.volume_id}: path {path} does not exist")
        with self.locks.hold(f"node/{request.volume_id}"):
            if self.os.is_block_device(path):
                size = _os_call(f"volume {request.volume_id}: size", lambda: self.os.block_size(path))
                return csi_pb2.NodeExpandVolumeResponse(capacity_bytes=size)
            device = self.os.mount_source(path)
            if not device or not device.startswith("/dev/"):
                raise not_found(f"volume {request.volume_id}: {path} is not a mounted volume")
            fs = _os_call(f"volume {request.volume_id}: reading {device}", lambda: self.os.fs_type(device))
            _os_call(f"volume {request.volume_id}: grow {fs}", lambda: self.os.resize_fs(device, fs, path))
            size = _os_call(f"volume {request.volume_id}: size", lambda: self.os.block_size(device))
        return csi_pb2.NodeExpandVolumeResponse(capacity_bytes=size)

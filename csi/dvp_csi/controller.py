# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Controller service: translates CSI requests onto volumes/attachments/snapshots and back. No DVP logic here."""

from __future__ import annotations

from dvp_common.dvp import disk_state
from google.protobuf import timestamp_pb2

from .attachments import Attachments
from .domain import disks
from .domain.capabilities import require_supported, unsupported_reason
from .domain.capacity import Range
from .domain.errors import invalid
from .generated import csi_pb2, csi_pb2_grpc
from .locks import TryLocks
from .modify import Modifications, create_parameters
from .quotas import QuotaWatch
from .rpc import budget, handler, require
from .snapshots import Snapshots
from .volume_health import CAPABILITIES as HEALTH_CAPABILITIES
from .volume_health import VolumeHealthService
from .volumes import STORAGE_CLASS_PARAM, Source, Volumes

Cap = csi_pb2.ControllerServiceCapability.RPC
CAPABILITIES = (Cap.CREATE_DELETE_VOLUME, Cap.PUBLISH_UNPUBLISH_VOLUME, Cap.EXPAND_VOLUME, Cap.LIST_VOLUMES,
                Cap.LIST_VOLUMES_PUBLISHED_NODES, Cap.CREATE_DELETE_SNAPSHOT, Cap.LIST_SNAPSHOTS, Cap.CLONE_VOLUME,
                Cap.GET_VOLUME, Cap.GET_SNAPSHOT, Cap.MODIFY_VOLUME,
                Cap.GET_CAPACITY)


def _range(request) -> Range:
    if not request.HasField("capacity_range"):
        return Range()
    return Range(request.capacity_range.required_bytes, request.capacity_range.limit_bytes)


def _source(request) -> Source | None:
    if not request.HasField("volume_content_source"):
        return None
    src = request.volume_content_source
    if src.HasField("snapshot"):
        if not src.snapshot.snapshot_id:
            raise invalid("CreateVolume: volume_content_source.snapshot.snapshot_id is required")
        return Source("snapshot", src.snapshot.snapshot_id)
    if src.HasField("volume"):
        if not src.volume.volume_id:
            raise invalid("CreateVolume: volume_content_source.volume.volume_id is required")
        return Source("volume", src.volume.volume_id)
    raise invalid("CreateVolume: volume_content_source must name a snapshot or a volume")


def _timestamp(obj) -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    created = obj["metadata"].get("creationTimestamp")
    if created:
        ts.FromJsonString(created)
    return ts


def _snapshot(vds) -> csi_pb2.Snapshot:
    return csi_pb2.Snapshot(snapshot_id=vds["metadata"]["name"], source_volume_id=vds["spec"]["virtualDiskName"],
                            size_bytes=disks.snapshot_size(vds), creation_time=_timestamp(vds),
                            ready_to_use=disks.snapshot_ready(vds))


# Volume health (volume_health.py) from DVP's VirtualDisk state.
CAPABILITIES += HEALTH_CAPABILITIES


class ControllerServicer(VolumeHealthService, csi_pb2_grpc.ControllerServicer):
    def __init__(self, volumes: Volumes, attachments: Attachments, snapshots: Snapshots, locks: TryLocks,
                 modifications: Modifications, quotas: QuotaWatch) -> None:
        self.volumes = volumes
        self.quotas = quotas
        self.modifications = modifications
        self.attachments = attachments
        self.snapshots = snapshots
        self.locks = locks
        self.t = volumes.s.timeouts

    @handler
    def ControllerGetCapabilities(self, request, context):  # noqa: N802
        return csi_pb2.ControllerGetCapabilitiesResponse(capabilities=[
            csi_pb2.ControllerServiceCapability(rpc=csi_pb2.ControllerServiceCapability.RPC(type=c))
            for c in CAPABILITIES])

    @handler
    def CreateVolume(self, request, context):  # noqa: N802
        require(request, "name", "volume_capabilities")
        require_supported(request.volume_capabilities)
        source = _source(request)
        params = create_parameters(request.parameters, request.mutable_parameters, f"volume {request.name}")
        with self.locks.hold(f"volume/{request.name}"):
            disk, capacity = self.volumes.create(request.name, params, _range(request), source,
                                                 budget(context, self.t.create + self.t.snapshot))
        vol = csi_pb2.Volume(volume_id=disk["metadata"]["name"], capacity_bytes=capacity)
        if source is not None:
            vol.content_source.CopyFrom(request.volume_content_source)
        return csi_pb2.CreateVolumeResponse(volume=vol)

    @handler
    def DeleteVolume(self, request, context):  # noqa: N802
        require(request, "volume_id")
        with self.locks.hold(f"volume/{request.volume_id}"):
            self.volumes.delete(request.volume_id, budget(context, self.t.delete))
        return csi_pb2.DeleteVolumeResponse()

    @handler
    def ControllerPublishVolume(self, request, context):  # noqa: N802
        require(request, "volume_id", "node_id", "volume_capability")
        require_supported([request.volume_capability], "volume_capability")
        with self.locks.hold(f"volume/{request.volume_id}"):
            ctx = self.attachments.publish(request.volume_id, request.node_id, budget(context, self.t.attach))
        return csi_pb2.ControllerPublishVolumeResponse(publish_context=ctx)

    @handler
    def ControllerUnpublishVolume(self, request, context):  # noqa: N802
        require(request, "volume_id")
        if not request.node_id:
            raise invalid("ControllerUnpublishVolume: node_id is required (detaching from every node is not supported)")
        with self.locks.hold(f"volume/{request.volume_id}"):
            self.attachments.unpublish(request.volume_id, request.node_id, budget(context, self.t.detach))
        return csi_pb2.ControllerUnpublishVolumeResponse()

    @handler
    def ValidateVolumeCapabilities(self, request, context):  # noqa: N802
        require(request, "volume_id", "volume_capabilities")
        self.volumes.dvp.volume(request.volume_id)
        for cap in request.volume_capabilities:
            reason = unsupported_reason(cap)
            if reason:
                return csi_pb2.ValidateVolumeCapabilitiesResponse(message=reason)
        confirmed = csi_pb2.ValidateVolumeCapabilitiesResponse.Confirmed(
            volume_context=request.volume_context, volume_capabilities=request.volume_capabilities,
            parameters=request.parameters)
        return csi_pb2.ValidateVolumeCapabilitiesResponse(confirmed=confirmed)

    @handler
    def ListVolumes(self, request, context):  # noqa: N802
        page, token = self.volumes.list(request.starting_token, request.max_entries)
        entries = [csi_pb2.ListVolumesResponse.Entry(
            volume=csi_pb2.Volume(volume_id=d["metadata"]["name"], capacity_bytes=disk_state.capacity_bytes(d)),
            status=csi_pb2.ListVolumesResponse.VolumeStatus(published_node_ids=self.volumes.published_nodes(d)))
            for d in page]
        return csi_pb2.ListVolumesResponse(entries=entries, next_token=token)

    @handler
    def ControllerGetVolume(self, request, context):  # noqa: N802
        require(request, "volume_id")
        disk = self.volumes.dvp.volume(request.volume_id)
        return csi_pb2.ControllerGetVolumeResponse(
            volume=csi_pb2.Volume(volume_id=disk["metadata"]["name"], capacity_bytes=disk_state.capacity_bytes(disk)),
            status=csi_pb2.ControllerGetVolumeResponse.VolumeStatus(
                published_node_ids=self.volumes.published_nodes(disk)))

    @handler
    def ControllerExpandVolume(self, request, context):  # noqa: N802
        require(request, "volume_id", "capacity_range")
        with self.locks.hold(f"volume/{request.volume_id}"):
            size = self.volumes.expand(request.volume_id, _range(request), budget(context, self.t.create))
        block = request.HasField("volume_capability") and request.volume_capability.HasField("block")
        return csi_pb2.ControllerExpandVolumeResponse(capacity_bytes=size, node_expansion_required=not block)

    @handler
    def GetCapacity(self, request, context):  # noqa: N802
        # Any capability may be asked for: every supported one is served from the same DVP disks.
        for c in request.volume_capabilities:
            if unsupported_reason(c):
                return csi_pb2.GetCapacityResponse(available_capacity=0)
        storage_class = request.parameters.get(STORAGE_CLASS_PARAM, "")
        return csi_pb2.GetCapacityResponse(available_capacity=self.quotas.capacity(storage_class))

    @handler
    def ControllerModifyVolume(self, request, context):  # noqa: N802
        require(request, "volume_id")
        with self.locks.hold(f"volume/{request.volume_id}"):
            self.modifications.modify(request.volume_id, dict(request.mutable_parameters),
                                      budget(context, self.t.modify))
        return csi_pb2.ControllerModifyVolumeResponse()

    @handler
    def CreateSnapshot(self, request, context):  # noqa: N802
        require(request, "name", "source_volume_id")
        with self.locks.hold(f"snapshot/{request.name}"):
            vds = self.snapshots.create(request.name, request.source_volume_id, dict(request.parameters))
        return csi_pb2.CreateSnapshotResponse(snapshot=_snapshot(vds))

    @handler
    def DeleteSnapshot(self, request, context):  # noqa: N802
        require(request, "snapshot_id")
        with self.locks.hold(f"snapshot/{request.snapshot_id}"):
            self.snapshots.delete(request.snapshot_id)
        return csi_pb2.DeleteSnapshotResponse()

    @handler
    def GetSnapshot(self, request, context):  # noqa: N802
        require(request, "snapshot_id")
        return csi_pb2.GetSnapshotResponse(snapshot=_snapshot(self.snapshots.dvp.snapshot(request.snapshot_id)))

    @handler
    def ListSnapshots(self, request, context):  # noqa: N802
        page, token = self.snapshots.list(request.snapshot_id, request.source_volume_id, request.starting_token,
                                          request.max_entries)
        return csi_pb2.ListSnapshotsResponse(
            entries=[csi_pb2.ListSnapshotsResponse.Entry(snapshot=_snapshot(v)) for v in page], next_token=token)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CSI controller driven over gRPC as the sidecars drive it (provisioner, attacher, resizer, snapshotter).

The sidecars requeue a failed call with backoff until it succeeds, except for codes that say the request itself
is wrong; so does this client (bounded). `retries` counts the repeated calls, by code."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
from dvp_csi.generated import csi_pb2, csi_pb2_grpc

# Final answers: the request is wrong or cannot ever succeed; everything else is tried again.
FINAL = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.ALREADY_EXISTS,
         grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.UNIMPLEMENTED,
         grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.RESOURCE_EXHAUSTED)
CALL_TIMEOUT = 60.0
ATTEMPTS = 20


def _cap() -> csi_pb2.VolumeCapability:
    c = csi_pb2.VolumeCapability(access_mode=csi_pb2.VolumeCapability.AccessMode(
        mode=csi_pb2.VolumeCapability.AccessMode.SINGLE_NODE_WRITER))
    c.mount.fs_type = "ext4"
    return c


class CsiClient:
    def __init__(self, socket: Path) -> None:
        self.channel = grpc.insecure_channel(f"unix://{socket}")
        self.controller = csi_pb2_grpc.ControllerStub(self.channel)
        self.calls = 0
        self.retries: dict[str, int] = {}

    def __enter__(self) -> CsiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.channel.close()

    def _call(self, method, request):
        delay = 0.2
        for attempt in range(ATTEMPTS):
            self.calls += 1
            try:
                return method(request, timeout=CALL_TIMEOUT)
            except grpc.RpcError as err:
                if err.code() in FINAL or attempt == ATTEMPTS - 1:
                    raise
                self.retries[err.code().name] = self.retries.get(err.code().name, 0) + 1
            time.sleep(delay)
            delay = min(delay * 2, 3.0)
        raise AssertionError("unreachable")

    def create_volume(self, name: str, size: int, parameters: dict[str, str], snapshot_id: str = ""):
        req = csi_pb2.CreateVolumeRequest(name=name, volume_capabilities=[_cap()], parameters=parameters)
        req.capacity_range.required_bytes = size
        if snapshot_id:
            req.volume_content_source.snapshot.snapshot_id = snapshot_id
        return self._call(self.controller.CreateVolume, req).volume

    def publish(self, volume_id: str, node_id: str):
        req = csi_pb2.ControllerPublishVolumeRequest(volume_id=volume_id, node_id=node_id, volume_capability=_cap())
        return self._call(self.controller.ControllerPublishVolume, req).publish_context

    def unpublish(self, volume_id: str, node_id: str) -> None:
        self._call(self.controller.ControllerUnpublishVolume,
                   csi_pb2.ControllerUnpublishVolumeRequest(volume_id=volume_id, node_id=node_id))

    def expand(self, volume_id: str, size: int) -> int:
        req = csi_pb2.ControllerExpandVolumeRequest(volume_id=volume_id, volume_capability=_cap())
        req.capacity_range.required_bytes = size
        return self._call(self.controller.ControllerExpandVolume, req).capacity_bytes

    def snapshot(self, volume_id: str, name: str):
        snap = None
        for _ in range(ATTEMPTS):  # the snapshotter repeats CreateSnapshot until ready_to_use
            snap = self._call(self.controller.CreateSnapshot,
                              csi_pb2.CreateSnapshotRequest(source_volume_id=volume_id, name=name)).snapshot
            if snap.ready_to_use:
                return snap
            time.sleep(0.3)
        return snap

    def delete_snapshot(self, snapshot_id: str) -> None:
        self._call(self.controller.DeleteSnapshot, csi_pb2.DeleteSnapshotRequest(snapshot_id=snapshot_id))

    def delete_volume(self, volume_id: str) -> None:
        self._call(self.controller.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id=volume_id))

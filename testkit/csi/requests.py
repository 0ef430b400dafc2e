# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Builders of CSI requests and a helper asserting an exact gRPC status code."""

from __future__ import annotations

import grpc
import pytest
from dvp_csi.generated import csi_pb2

AM = csi_pb2.VolumeCapability.AccessMode
GIB = 1 << 30
MIB = 1 << 20


def cap(mode=AM.SINGLE_NODE_WRITER, block=False, fs="") -> csi_pb2.VolumeCapability:
    c = csi_pb2.VolumeCapability(access_mode=AM(mode=mode))
    if block:
        c.block.SetInParent()
    else:
        c.mount.fs_type = fs
    return c


def create(name="pvc-1", sc="fast", required=0, limit=0, caps=None, snapshot="", volume="", **params):
    req = csi_pb2.CreateVolumeRequest(name=name, volume_capabilities=caps if caps is not None else [cap()],
                                      parameters={"dvpStorageClass": sc, **params} if sc is not None else params)
    if required or limit:
        req.capacity_range.required_bytes, req.capacity_range.limit_bytes = required, limit
    if snapshot:
        req.volume_content_source.snapshot.snapshot_id = snapshot
    if volume:
        req.volume_content_source.volume.volume_id = volume
    return req


def publish(volume_id, node="worker-0", block=False):
    return csi_pb2.ControllerPublishVolumeRequest(volume_id=volume_id, node_id=node, volume_capability=cap(block=block))


def unpublish(volume_id, node="worker-0"):
    return csi_pb2.ControllerUnpublishVolumeRequest(volume_id=volume_id, node_id=node)


def expect_code(code: grpc.StatusCode, call, request, match: str = ""):
    with pytest.raises(grpc.RpcError) as err:
        call(request)
    assert err.value.code() == code, f"{err.value.code()} {err.value.details()}"
    if match:
        assert match in err.value.details(), err.value.details()
    return err.value.details()

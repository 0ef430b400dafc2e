# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ControllerGetVolumeHealth and ControllerListVolumeHealth (CSI's volume health, GET_VOLUME_HEALTH and
LIST_VOLUME_HEALTH): the VirtualDisk's state as DVP reports it, judged by domain/health.py. The node plugin's
NodeGetVolumeHealth judges what the node sees (domain/node_health.py) with the same entries."""

from __future__ import annotations

from collections.abc import Iterable

from .domain.health import Entry, health_entries
from .generated import csi_pb2
from .rpc import handler, require
from .volumes import paginate

Cap = csi_pb2.ControllerServiceCapability.RPC
CAPABILITIES = (Cap.GET_VOLUME_HEALTH, Cap.LIST_VOLUME_HEALTH)


def to_proto(volume_id: str, entries: Iterable[Entry]) -> csi_pb2.VolumeHealth:
    return csi_pb2.VolumeHealth(volume_id=volume_id, health_statuses=[
        csi_pb2.VolumeHealth.VolumeHealthEntry(status=csi_pb2.VolumeHealthErrorType.Value(e.status),
                                               reason=e.reason, message=e.message) for e in entries])


def volume_health(disk) -> csi_pb2.VolumeHealth:
    return to_proto(disk["metadata"]["name"], health_entries(disk))


class VolumeHealthService:
    """Mixed into the controller servicer (which holds `volumes`)."""

    @handler
    def ControllerGetVolumeHealth(self, request, context):  # noqa: N802
        require(request, "volume_id")
        disk = self.volumes.dvp.volume(request.volume_id)  # a missing or foreign disk is NotFound
        return csi_pb2.ControllerGetVolumeHealthResponse(volume_health=volume_health(disk))

    @handler
    def ControllerListVolumeHealth(self, request, context):  # noqa: N802
        abnormal = sorted((d for d in self.volumes.dvp.disks.list() if health_entries(d)),
                          key=lambda d: d["metadata"]["name"])
        page, token = paginate(abnormal, request.starting_token, request.max_entries, "ControllerListVolumeHealth")
        return csi_pb2.ControllerListVolumeHealthResponse(entries=[volume_health(d) for d in page], next_token=token)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Identity service: plugin info, capabilities derived from the mode, and a Probe that checks DVP."""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf import wrappers_pb2

from . import VERSION
from .generated import csi_pb2, csi_pb2_grpc
from .rpc import handler
from .settings import Settings

PluginCapability = csi_pb2.PluginCapability


class IdentityServicer(csi_pb2_grpc.IdentityServicer):
    def __init__(self, settings: Settings, probe: Callable[[], None] | None) -> None:
        self.s = settings
        self._probe = probe

    @handler
    def GetPluginInfo(self, request, context):  # noqa: N802 (gRPC method names)
        return csi_pb2.GetPluginInfoResponse(name=self.s.driver_name, vendor_version=VERSION)

    @handler
    def GetPluginCapabilities(self, request, context):  # noqa: N802
        caps = [PluginCapability(volume_expansion=PluginCapability.VolumeExpansion(
            type=PluginCapability.VolumeExpansion.ONLINE))]
        if self.s.controller:
            caps.insert(0, PluginCapability(service=PluginCapability.Service(
                type=PluginCapability.Service.CONTROLLER_SERVICE)))
        return csi_pb2.GetPluginCapabilitiesResponse(capabilities=caps)

    @handler
    def Probe(self, request, context):  # noqa: N802
        if self._probe is not None:
            self._probe()  # an unreachable DVP (kube Transient) -> UNAVAILABLE
        return csi_pb2.ProbeResponse(ready=wrappers_pb2.BoolValue(value=True))

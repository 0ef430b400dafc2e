# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The driver served over a real unix socket, on a DVP access (dvp_csi.access.Dvp; csi_sim: on the simulator)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
from dvp_csi import driver, server
from dvp_csi.generated import csi_pb2_grpc
from dvp_csi.settings import Settings, Timeouts

CLUSTER = "11111111-2222-3333-4444-555555555555"
OTHER_CLUSTER = "99999999-8888-7777-6666-555555555555"
NODE = "worker-0"
TIMEOUTS = Timeouts(create=5, delete=5, attach=5, detach=2, snapshot=5, device=0.2, modify=5)


@dataclass
class Running:
    settings: Settings
    dvp: object
    channel: grpc.Channel
    identity: csi_pb2_grpc.IdentityStub
    controller: csi_pb2_grpc.ControllerStub
    node: csi_pb2_grpc.NodeStub
    endpoint: str
    driver: driver.Driver


def make_settings(tmp: Path, **over) -> Settings:
    base = Settings(endpoint=f"unix://{tmp}/csi.sock", mode="all", node_name=NODE, namespace="dvp-project",
                    cluster_uuid=CLUSTER, device_dir=str(tmp / "by-id"), metrics_address="",
                    dead_vm_reap_interval=0,
                    timeouts=TIMEOUTS)
    return dataclasses.replace(base, **over).validate()


def serve(settings: Settings, dvp, os_ops=None) -> Iterator[Running]:
    d = driver.build(settings, dvp, os_ops)
    srv = server.build(settings.endpoint, d.identity, d.controller, d.node, workers=64)
    srv.start()
    ch = grpc.insecure_channel(settings.endpoint)
    try:
        yield Running(settings, dvp, ch, csi_pb2_grpc.IdentityStub(ch), csi_pb2_grpc.ControllerStub(ch),
                      csi_pb2_grpc.NodeStub(ch), settings.endpoint, d)
    finally:
        ch.close()
        srv.stop(0).wait()
        d.close()

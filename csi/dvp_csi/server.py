# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""gRPC server plumbing: endpoint parsing, the logging/metrics interceptor."""

from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from . import metrics
from .generated import csi_pb2_grpc

log = logging.getLogger("dvp_csi.rpc")
# Logged request fields: identifiers only. secrets, parameters and contexts are never logged.
LOGGED_FIELDS = ("name", "volume_id", "node_id", "snapshot_id", "source_volume_id", "target_path",
                 "staging_target_path", "volume_path")
QUIET_METHODS = frozenset({"Probe", "NodeGetCapabilities", "GetPluginInfo"})


def parse_endpoint(endpoint: str) -> tuple[str, str]:
    """(address for grpc, unix socket path or "")."""
    if endpoint.startswith("unix://"):
        path = endpoint[len("unix://"):]
        if not path.startswith("/"):
            path = "/" + path
        return f"unix://{path}", path
    if endpoint.startswith("tcp://"):
        return endpoint[len("tcp://"):], ""
    raise ValueError(f"endpoint {endpoint!r}: expected unix:///path or tcp://host:port")


def describe(request: Any) -> str:
    parts = []
    for field in LOGGED_FIELDS:
        value = getattr(request, field, "")
        if value:
            parts.append(f"{field}={value}")
    return " ".join(parts)


def volume_source(request) -> str:
    """A CreateVolumeRequest's data source: "snapshot" (a restore), "volume" (a clone) or "empty"."""
    if not request.HasField("volume_content_source"):
        return "empty"
    return request.volume_content_source.WhichOneof("type") or "empty"


class RequestLog(grpc.ServerInterceptor):
    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None or handler.unary_unary is None:
            return handler
        method = handler_call_details.method.rsplit("/", 1)[-1]
        inner = handler.unary_unary

        def call(request, context):
            start = time.monotonic()
            code = grpc.StatusCode.OK
            try:
                return inner(request, context)
            except Exception:
                code = context.code() or grpc.StatusCode.UNKNOWN
                raise
            finally:
                elapsed = time.monotonic() - start
                metrics.RPC_TOTAL.labels(method, code.name).inc()
                metrics.RPC_SECONDS.labels(method).observe(elapsed)
                if method == "CreateVolume" and code == grpc.StatusCode.OK:
                    metrics.PROVISIONING_SECONDS.labels(volume_source(request)).observe(elapsed)
                level = logging.DEBUG if method in QUIET_METHODS and code == grpc.StatusCode.OK else logging.INFO
                details = context.details() if code != grpc.StatusCode.OK else ""
                log.log(level, "%s %s -> %s %.3fs %s", method, describe(request), code.name, elapsed, details or "")

        return grpc.unary_unary_rpc_method_handler(call, request_deserializer=handler.request_deserializer,
                                                   response_serializer=handler.response_serializer)


def build(endpoint: str, identity: Any, controller: Any | None, node: Any | None, workers: int) -> grpc.Server:
    address, socket_path = parse_endpoint(endpoint)
    if socket_path:
        os.makedirs(os.path.dirname(socket_path), exist_ok=True)
        if os.path.exists(socket_path):
            os.unlink(socket_path)  # a stale socket of a previous run
    server = grpc.server(ThreadPoolExecutor(max_workers=workers, thread_name_prefix="csi"),
                         interceptors=[RequestLog()])
    csi_pb2_grpc.add_IdentityServicer_to_server(identity, server)
    if controller is not None:
        csi_pb2_grpc.add_ControllerServicer_to_server(controller, server)
    if node is not None:
        csi_pb2_grpc.add_NodeServicer_to_server(node, server)
    if server.add_insecure_port(address) == 0 and not socket_path:
        raise OSError(f"cannot listen on {endpoint}")
    return server

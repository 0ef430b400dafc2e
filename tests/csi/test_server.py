# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Identity service, settings, endpoint parsing, request logs without secrets, metrics, graceful SIGTERM."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from dvp_common.kube import KubeClient, RetryPolicy
from dvp_csi import metrics
from dvp_csi.access import Dvp
from dvp_csi.generated import csi_pb2, csi_pb2_grpc
from dvp_csi.server import parse_endpoint
from dvp_csi.settings import ConfigInvalid, parse

from testkit.csi.env import CLUSTER, make_settings, serve
from testkit.csi.requests import create, expect_code

ROOT = Path(__file__).resolve().parents[2]
PC = csi_pb2.PluginCapability


def test_identity(csi, tmp_path):
    info = csi.identity.GetPluginInfo(csi_pb2.GetPluginInfoRequest())
    assert (info.name, info.vendor_version) == ("csi.dvp.deckhouse.io", "0.1.0")
    caps = csi.identity.GetPluginCapabilities(csi_pb2.GetPluginCapabilitiesRequest()).capabilities
    assert list(caps) == [PC(service=PC.Service(type=PC.Service.CONTROLLER_SERVICE)),
                          PC(volume_expansion=PC.VolumeExpansion(type=PC.VolumeExpansion.ONLINE))]
    assert csi.identity.Probe(csi_pb2.ProbeRequest()).ready.value is True
    with socket.socket() as closed:  # a port nothing listens on: DVP unreachable
        closed.bind(("127.0.0.1", 0))
        nowhere = KubeClient.from_url(f"https://127.0.0.1:{closed.getsockname()[1]}", token="t", insecure=True,  # noqa: S106
                                      retry=RetryPolicy(attempts=1))
        for r in serve(make_settings(tmp_path / "off"), Dvp.over(nowhere, "proj", CLUSTER)):
            expect_code(grpc.StatusCode.UNAVAILABLE, r.identity.Probe, csi_pb2.ProbeRequest(),
                        "DVP API is unreachable")
            expect_code(grpc.StatusCode.UNAVAILABLE, r.controller.CreateVolume, create("pvc-1"),
                        "DVP API is unreachable")


def test_node_mode_serves_no_controller(tmp_path):
    for r in serve(make_settings(tmp_path, mode="node"), None):
        caps = r.identity.GetPluginCapabilities(csi_pb2.GetPluginCapabilitiesRequest()).capabilities
        assert list(caps) == [PC(volume_expansion=PC.VolumeExpansion(type=PC.VolumeExpansion.ONLINE))]
        assert r.identity.Probe(csi_pb2.ProbeRequest()).ready.value is True
        expect_code(grpc.StatusCode.UNIMPLEMENTED, r.controller.CreateVolume, create("pvc-1"))


def test_settings_from_flags_and_env():
    s = parse(["--mode", "controller", "--endpoint", "unix:///csi/csi.sock", "--log-level", "Debug"],
              {"DVP_NAMESPACE": "proj", "CLUSTER_UUID": "u-1", "DVP_KUBERNETES_CONFIG_BASE64": "c2VjcmV0"})
    assert (s.mode, s.namespace, s.cluster_uuid, s.log_level, s.kubeconfig) == (
        "controller", "proj", "u-1", "Debug", "c2VjcmV0")
    assert "c2VjcmV0" not in repr(s)  # the kubeconfig never shows up in logs
    for argv, env, text in (
        (["--mode", "node"], {}, "--node-name (NODE_NAME) is required in node mode"),
        (["--mode", "controller"], {"CLUSTER_UUID": "u"}, "--namespace (DVP_NAMESPACE) is required"),
        (["--mode", "controller", "--endpoint", "/csi.sock"], {"CLUSTER_UUID": "u", "DVP_NAMESPACE": "p"},
         "must start with unix:// or tcp://"),
        (["--node-name", "n", "--mode", "node", "--log-level", "Loud"], {}, "--log-level: 'Loud'"),
    ):
        with pytest.raises(ConfigInvalid, match=text.replace("(", r"\(").replace(")", r"\)")):
            parse(argv, env)


def test_endpoint_parsing():
    assert parse_endpoint("unix:///csi/csi.sock") == ("unix:///csi/csi.sock", "/csi/csi.sock")
    assert parse_endpoint("unix://tmp/csi.sock") == ("unix:///tmp/csi.sock", "/tmp/csi.sock")
    assert parse_endpoint("tcp://127.0.0.1:10000") == ("127.0.0.1:10000", "")
    with pytest.raises(ValueError, match="expected unix:///path or tcp://host:port"):
        parse_endpoint("http://x")


def test_request_log_names_objects_never_secrets_and_counts_calls(csi, caplog):
    caplog.set_level(logging.INFO, logger="dvp_csi.rpc")
    before = metrics.REGISTRY.get_sample_value("dvp_csi_rpc_total", {"method": "CreateVolume", "code": "OK"}) or 0
    req = create("pvc-log")
    req.secrets["password"] = "hunter2-do-not-log"  # noqa: S105
    csi.controller.CreateVolume(req)
    bad = create("pvc-bad", sc=None)
    bad.secrets["token"] = "tok-do-not-log"  # noqa: S105
    expect_code(grpc.StatusCode.INVALID_ARGUMENT, csi.controller.CreateVolume, bad)
    lines = [r.getMessage() for r in caplog.records if r.name == "dvp_csi.rpc"]
    assert any(line.startswith("CreateVolume name=pvc-log -> OK ") for line in lines), lines
    assert any("CreateVolume name=pvc-bad -> INVALID_ARGUMENT" in line and "dvpStorageClass is required" in line
               for line in lines), lines
    assert not [line for line in lines if "do-not-log" in line or "dvpStorageClass: " in line]
    after = metrics.REGISTRY.get_sample_value("dvp_csi_rpc_total", {"method": "CreateVolume", "code": "OK"})
    assert after == before + 1


def test_process_serves_the_socket_and_stops_gracefully_on_sigterm(tmp_path):
    sock = tmp_path / "csi.sock"
    sock.write_text("stale")  # a leftover socket file from a previous run is replaced
    env = {**os.environ, "NODE_NAME": "worker-0"}
    proc = subprocess.Popen([sys.executable, "-m", "dvp_csi", "--mode", "node", "--endpoint", f"unix://{sock}",
                             "--metrics-address", "127.0.0.1:0"], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        channel = grpc.insecure_channel(f"unix://{sock}")
        grpc.channel_ready_future(channel).result(timeout=20)
        info = csi_pb2_grpc.NodeStub(channel).NodeGetInfo(csi_pb2.NodeGetInfoRequest())
        assert (info.node_id, info.max_volumes_per_node) == ("worker-0", 15)
        channel.close()
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert time.monotonic() - start < 12
    finally:
        if proc.poll() is None:
            proc.kill()
    out = proc.stdout.read()
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]  # JSON logs, one object per line
    msgs = [line["msg"] for line in lines]
    assert any("serving node on unix://" in m for m in msgs) and "signal SIGTERM: stopping" in msgs, out
    assert {line["level"] for line in lines} <= {"debug", "info"}, out

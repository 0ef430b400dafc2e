# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Health server, JSON logging with redaction, typed settings."""

from __future__ import annotations

import dataclasses
import io
import json
import logging

import pytest
import requests
from dvp_common.runtime import ConfigInvalid, HealthServer, load, parse_duration
from dvp_common.runtime import logging as jlog
from dvpc_kit import TOKEN
from prometheus_client import CollectorRegistry, Counter


def test_health_server_endpoints():
    registry = CollectorRegistry()
    Counter("demo_total", "demo", registry=registry).inc(3)
    server = HealthServer("127.0.0.1:0", registry).start()
    ready = {"ok": False}
    server.add_liveness("loop", lambda: True)
    server.add_readiness("dvp", lambda: True if ready["ok"] else "not connected")
    try:
        base = f"http://{server.address}"
        assert server.address.startswith("127.0.0.1:")
        r = requests.get(base + "/healthz", timeout=5)
        assert (r.status_code, r.text) == (200, "[+]loop ok\nok\n")
        r = requests.get(base + "/readyz", timeout=5)
        assert (r.status_code, r.text) == (500, "[-]dvp failed: not connected\n[+]loop ok\nfailed\n")
        ready["ok"] = True
        assert requests.get(base + "/readyz", timeout=5).status_code == 200
        metrics = requests.get(base + "/metrics", timeout=5)
        assert metrics.status_code == 200 and "demo_total 3.0" in metrics.text
        assert requests.get(base + "/other", timeout=5).status_code == 404
    finally:
        server.stop()


def test_json_logs_redact_secrets():
    stream = io.StringIO()
    log = jlog.setup("Debug", stream)
    try:
        logging.getLogger("capdvp").info("connecting with Authorization: Bearer %s", TOKEN,
                                         extra={"object": "vm/a", "token": TOKEN, "key": "ns/vm-a",
                                                "tls_key": "k3y", "client-key-data": "k3y",
                                                "kubeconfig": {"users": [{"user": {"token": TOKEN}}]},
                                                "body": {"data": {"userData": "c2VjcmV0"}, "name": "n"}})
        logging.getLogger("x").warning('json {"token": "%s", "password": "p4ss"}', TOKEN)
        logging.getLogger("x").error("pem -----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY----- end")
    finally:
        log.handlers[:] = []
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert TOKEN not in stream.getvalue() and "p4ss" not in stream.getvalue() and "AAA" not in stream.getvalue()
    first = lines[0]
    assert (first["level"], first["logger"], first["msg"], first["object"], first["token"], first["kubeconfig"]) == (
        "info", "capdvp", "connecting with Authorization: Bearer <redacted>", "vm/a", "<redacted>", "<redacted>")
    assert first["body"] == {"data": {"userData": "<redacted>"}, "name": "n"}
    assert (first["key"], first["tls_key"], first["client-key-data"]) == ("ns/vm-a", "<redacted>", "<redacted>")
    assert lines[2]["msg"] == "pem <redacted> end"
    with pytest.raises(ValueError, match="logLevel 'Verbose': expected one of Debug, Info, Warn, Error"):
        jlog.setup("Verbose")


@dataclasses.dataclass
class Settings:
    namespace: str
    resync: float = 300.0
    workers: int = 4
    leader_elect: bool = True
    zones: list[str] = dataclasses.field(default_factory=lambda: ["default"])
    token: str = dataclasses.field(default="", metadata={"secret": True, "env": "DVP_TOKEN"})

    def validate(self) -> None:
        if self.workers < 1:
            raise ValueError("--workers must be at least 1")


def test_settings_defaults_env_then_flags():
    s = load(Settings, ["--workers", "8", "--resync=5m"], {"CCM_NAMESPACE": "proj", "CCM_WORKERS": "2",
                                                            "CCM_LEADER_ELECT": "false", "CCM_ZONES": "a, b"},
             prefix="CCM_")
    assert s == Settings(namespace="proj", resync=300.0, workers=8, leader_elect=False, zones=["a", "b"])
    assert load(Settings, ["--namespace", "p", "--resync", "1h30m"], {}).resync == 5400
    assert parse_duration("250ms") == 0.25 and parse_duration("90") == 90


@pytest.mark.parametrize(("argv", "env", "message"), [
    ([], {}, "--namespace (or NAMESPACE) is required"),
    (["--namespace", "p", "--workers", "x"], {}, "--workers: invalid literal for int() with base 10: 'x'"),
    (["--namespace", "p", "--workers", "0"], {}, "--workers must be at least 1"),
    (["--namespace", "p", "--bogus", "1"], {}, "unknown flag --bogus"),
    (["--namespace", "p"], {"LEADER_ELECT": "maybe"}, "environment variable LEADER_ELECT: 'maybe' is not a boolean"),
    (["--namespace", "p", "--resync", "soon"], {}, "--resync: 'soon' is not a duration (e.g. 30s, 5m, 1h)"),
])
def test_settings_errors_are_one_config_invalid(argv, env, message):
    with pytest.raises(ConfigInvalid) as info:
        load(Settings, argv, env)
    assert str(info.value) == message

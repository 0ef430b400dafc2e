# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The HTTPS server with real TLS (a throw-away CA and a 127.0.0.1 certificate from testkit/harness/pki.py)."""

from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from dvp_common.admission.server import WebhookServer
from dvp_webhooks.handlers import ROUTES

from testkit.harness import pki
from testkit.webhooks import FakeLookups, allowed, body, denied

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tls(tmp_path):
    return pki.generate(tmp_path / "pki")


@pytest.fixture
def server(tls):
    srv = WebhookServer("127.0.0.1:0", ROUTES["snapshot"], FakeLookups(), str(tls.serving_cert),
                        str(tls.serving_key)).start()
    yield srv
    srv.stop()


def post(srv, path, data, ca, **kw):
    return requests.post(f"https://127.0.0.1:{srv.port}{path}", data=data, verify=str(ca), timeout=10,
                         headers={"Content-Type": "application/json"}, **kw)


def vs(cls=None):
    spec = {"source": {"persistentVolumeClaimName": "data"}}
    if cls is not None:
        spec["volumeSnapshotClassName"] = cls
    return {"metadata": {"name": "s", "namespace": "n"}, "spec": spec}


def test_review_over_tls(server, tls):
    resp = post(server, "/validate-volumesnapshot", body("VolumeSnapshot", "CREATE", vs(), namespace="n"),
                tls.ca_cert)
    assert resp.status_code == 200 and resp.headers["Content-Type"] == "application/json"
    assert resp.json() == allowed()
    resp = post(server, "/validate-volumesnapshot", body("VolumeSnapshot", "CREATE", vs(""), namespace="n"),
                tls.ca_cert)
    assert resp.json() == denied(
        'VolumeSnapshot.snapshot.storage.k8s.io "n/s": spec.volumeSnapshotClassName must not be empty when set')
    assert requests.get(f"https://127.0.0.1:{server.port}/healthz", verify=str(tls.ca_cert), timeout=5).text == "ok\n"
    assert post(server, "/nowhere", b"{}", tls.ca_cert).status_code == 404


def test_bad_bodies_over_tls_keep_the_server_up(server, tls):
    resp = post(server, "/validate-volumesnapshot", b"not json", tls.ca_cert)
    assert (resp.status_code, resp.json()) == (400, denied("AdmissionReview: body is not JSON (JSONDecodeError)",
                                                           code=400, uid=""))
    # a lying Content-Length beyond the limit is refused without reading
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
        ctx = ssl.create_default_context(cafile=str(tls.ca_cert))
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as conn:
            conn.sendall(b"POST /validate-volumesnapshot HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n")
            chunks = []
            while chunk := conn.recv(65536):  # the server closes after answering
                chunks.append(chunk)
            answer = b"".join(chunks).decode()
    assert answer.startswith("HTTP/1.1 413 ")
    doc = json.loads(answer.split("\r\n\r\n", 1)[1])
    assert doc == denied(f"AdmissionReview: body length must be given and at most {3 << 20} bytes", code=400,
                         uid="")
    # plain HTTP on the TLS port: the handshake fails, the server goes on
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.post(f"http://127.0.0.1:{server.port}/validate-volumesnapshot", data=b"{}", timeout=5)
    # a client that connects and says nothing does not block others
    idle = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    try:
        start = time.monotonic()
        assert post(server, "/validate-volumesnapshot", body("VolumeSnapshot", "CREATE", vs(), namespace="n"),
                    tls.ca_cert).json() == allowed()
        assert time.monotonic() - start < 5
    finally:
        idle.close()


def test_untrusted_client_ca_cannot_talk(server, tmp_path):
    other = pki.generate(tmp_path / "other")
    with pytest.raises(requests.exceptions.SSLError):
        post(server, "/validate-volumesnapshot", b"{}", other.ca_cert)


def test_certificate_rotation_is_picked_up(tls, tmp_path):
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    cert.write_bytes(tls.serving_cert.read_bytes())
    key.write_bytes(tls.serving_key.read_bytes())
    srv = WebhookServer("127.0.0.1:0", ROUTES["snapshot"], FakeLookups(), str(cert), str(key)).start()
    try:
        assert requests.get(f"https://127.0.0.1:{srv.port}/healthz", verify=str(tls.ca_cert), timeout=5).ok
        fresh = pki.generate(tmp_path / "fresh")
        cert.write_bytes(fresh.serving_cert.read_bytes())
        key.write_bytes(fresh.serving_key.read_bytes())
        os.utime(cert, (time.time() + 5, time.time() + 5))
        assert requests.get(f"https://127.0.0.1:{srv.port}/healthz", verify=str(fresh.ca_cert), timeout=5).ok
        with pytest.raises(requests.exceptions.SSLError):
            requests.get(f"https://127.0.0.1:{srv.port}/healthz", verify=str(tls.ca_cert), timeout=5)
    finally:
        srv.stop()


def test_bad_command_lines():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "dvp_webhooks", *args], capture_output=True, text=True,
                              cwd=ROOT, timeout=30)
    out = run()
    assert (out.returncode, out.stderr) == (2, "dvp_webhooks: the first argument must be the mode: snapshot or "
                                               "validation\n")
    out = run("validation", "--listen-address=nope")
    assert (out.returncode, out.stderr) == (2, "dvp_webhooks: --listen-address: 'nope' is not [host]:port\n")
    out = run("validation", "--log-level=Loud")
    assert (out.returncode, out.stderr) == (2, "dvp_webhooks: --log-level: 'Loud' is not one of Debug, Info, Warn, "
                                               "Error\n")

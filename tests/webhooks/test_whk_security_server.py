# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The HTTPS server under a hostile direct client, with real TLS clients: body cap, connection and thread cap,
bounded memory, and certificate rotation that is not atomic or keeps the files' times."""

from __future__ import annotations

import os
import socket
import ssl
import threading
import time
import tracemalloc

import pytest
import requests
from dvp_common.admission.decider import Decider
from dvp_common.admission.server import MAX_BODY, WebhookServer
from dvp_webhooks.handlers import ROUTES

from testkit.harness import pki
from testkit.webhooks import FakeLookups, allowed, body

SNAP = "/validate-volumesnapshot"
VS = {"metadata": {"name": "s", "namespace": "n"}, "spec": {"source": {"persistentVolumeClaimName": "data"}}}


@pytest.fixture
def tls(tmp_path):
    return pki.generate(tmp_path / "pki")


def serve(cert, key, **kw) -> WebhookServer:
    return WebhookServer("127.0.0.1:0", ROUTES["snapshot"], FakeLookups(), str(cert), str(key), **kw).start()


def review(srv, ca) -> requests.Response:
    return requests.post(f"https://127.0.0.1:{srv.port}{SNAP}", data=body("VolumeSnapshot", "CREATE", VS,
                                                                          namespace="n"),
                         verify=str(ca), timeout=10, headers={"Content-Type": "application/json"})


def raw_request(srv, ca, head: bytes, payload: bytes = b"") -> bytes:
    ctx = ssl.create_default_context(cafile=str(ca))
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as raw, \
            ctx.wrap_socket(raw, server_hostname="127.0.0.1") as conn:
        conn.sendall(head + payload)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_body_over_the_api_servers_limit_is_413_unread(tls):
    srv = serve(tls.serving_cert, tls.serving_key)
    try:
        head = f"POST {SNAP} HTTP/1.1\r\nHost: x\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n".encode()
        assert raw_request(srv, tls.ca_cert, head).startswith(b"HTTP/1.1 413 ")
        head = f"POST {SNAP} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        assert raw_request(srv, tls.ca_cert, head).startswith(b"HTTP/1.1 411 ")
        assert review(srv, tls.ca_cert).json() == allowed()
    finally:
        srv.stop()


def test_a_body_at_the_limit_is_judged_in_bounded_memory():
    decider = Decider()
    big = body("VolumeSnapshot", "CREATE", {**VS, "metadata": {**VS["metadata"], "annotations": {
        f"k{i}": "v" * 1000 for i in range(3000)}}}, namespace="n")
    assert MAX_BODY - (1 << 20) < len(big) <= MAX_BODY
    tracemalloc.start()
    try:
        status, out = decider.decide(big, ROUTES["snapshot"][SNAP], FakeLookups())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        decider.close()
    assert (status, out["response"]["allowed"]) == (200, True)
    assert peak < 16 * len(big)  # the parsed body and its answer, nothing that grows with connections


def test_connections_beyond_the_cap_are_refused_and_threads_stay_bounded(tls):
    srv = serve(tls.serving_cert, tls.serving_key, max_connections=4)
    idle: list[socket.socket] = []
    try:
        before = threading.active_count()
        for _ in range(4):  # slow clients: connect, never handshake
            idle.append(socket.create_connection(("127.0.0.1", srv.port), timeout=10))
        deadline = time.monotonic() + 10
        while srv.slots._value > 0 and time.monotonic() < deadline:  # noqa: SLF001 - wait for the 4 accepts
            time.sleep(0.01)
        assert srv.slots._value == 0  # noqa: SLF001
        extra = [socket.create_connection(("127.0.0.1", srv.port), timeout=10) for _ in range(20)]
        for s in extra:  # refused at once: closed without a byte
            assert s.recv(1) == b""
            s.close()
        assert threading.active_count() <= before + 4
        assert srv.refused == 20
    finally:
        for s in idle:
            s.close()
    try:
        deadline = time.monotonic() + 15
        while True:  # the slots come back once the idle clients are gone
            try:
                assert review(srv, tls.ca_cert).json() == allowed()
                break
            except requests.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
    finally:
        srv.stop()


def test_non_atomic_rotation_keeps_the_old_pair_until_the_new_one_is_whole(tls, tmp_path):
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    cert.write_bytes(tls.serving_cert.read_bytes())
    key.write_bytes(tls.serving_key.read_bytes())
    srv = serve(cert, key)
    try:
        assert review(srv, tls.ca_cert).ok
        fresh = pki.generate(tmp_path / "fresh")
        cert.write_bytes(fresh.serving_cert.read_bytes())  # the certificate first, its key not yet
        for _ in range(3):
            assert review(srv, tls.ca_cert).json() == allowed()  # the old pair keeps serving
        key.write_bytes(fresh.serving_key.read_bytes())
        assert review(srv, fresh.ca_cert).json() == allowed()
        with pytest.raises(requests.exceptions.SSLError):
            review(srv, tls.ca_cert)
    finally:
        srv.stop()


def test_rotation_that_keeps_the_file_times_is_seen(tls, tmp_path):
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    cert.write_bytes(tls.serving_cert.read_bytes())
    key.write_bytes(tls.serving_key.read_bytes())
    times = {p: (os.stat(p).st_atime_ns, os.stat(p).st_mtime_ns) for p in (cert, key)}
    srv = serve(cert, key)
    try:
        assert review(srv, tls.ca_cert).ok
        fresh = pki.generate(tmp_path / "fresh")
        cert.write_bytes(fresh.serving_cert.read_bytes())
        key.write_bytes(fresh.serving_key.read_bytes())
        for p, (atime, mtime) in times.items():
            os.utime(p, ns=(atime, mtime))
        assert review(srv, fresh.ca_cert).json() == allowed()
    finally:
        srv.stop()

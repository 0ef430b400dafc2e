# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The HTTPS server: POST <route path> takes an AdmissionReview; GET /healthz and /readyz for probes.

TLS is negotiated in the connection's own thread (a slow client never blocks accept); every socket has a
timeout; bodies (3 MiB), connections and threads are bounded; every request is answered within the Decider's
deadline. The certificate pair is re-read when its files' content changes (the certificate hook rotates the
Secret; the kubelet swaps the files, not always atomically)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CollectorRegistry

from ..serving import Serving, bind, reply
from . import review
from .decider import Decider, Route
from .metrics import AdmissionMetrics

log = logging.getLogger(__name__)
MAX_BODY = 3 << 20  # the API server's own limit for a request body
SOCKET_TIMEOUT = 10.0  # per read/write; an idle keep-alive connection is closed after it
MAX_CONNECTIONS = 64  # one thread each; more are refused at once (the API server keeps a few alive)
REFUSED_LOG_EVERY = 10.0  # seconds between log lines about refused connections


class _Tls:
    """The serving pair. A new SSLContext is built from the files when their content changes and swapped in only
    once it loaded (a certificate without its key, mid-rotation, keeps the old pair serving)."""

    def __init__(self, cert_file: str, key_file: str) -> None:
        self.cert_file, self.key_file = cert_file, key_file
        self._lock = threading.Lock()
        self._digest = b""
        self.context = self._load()

    def _read(self) -> bytes:
        """The digest of both files' content (a rotation that keeps file times is seen too)."""
        with open(self.cert_file, "rb") as c, open(self.key_file, "rb") as k:
            return hashlib.sha256(c.read(1 << 20) + b"\0" + k.read(1 << 20)).digest()

    def _load(self) -> ssl.SSLContext:
        digest = self._read()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        # Files changing between the hash and the load are seen at the next check (their digest differs);
        # a certificate and a key that do not match fail here and change nothing.
        context.load_cert_chain(self.cert_file, self.key_file)
        self._digest = digest
        return context

    def maybe_reload(self) -> None:
        """Before each handshake: two small reads and a hash."""
        with self._lock:
            try:
                if self._read() == self._digest:
                    return
                self.context = self._load()
                log.info("TLS certificate pair reloaded")
            except (OSError, ssl.SSLError, ValueError) as exc:  # mid-rotation: keep serving the pair we have
                log.warning("TLS certificate reload failed, the previous pair keeps serving: %s", exc)


class WebhookServer(Serving):
    thread_name = "admission"

    def __init__(self, address: str, routes: Mapping[str, Route], lookups: Any, cert_file: str,
                 key_file: str, decider: Decider | None = None, max_connections: int = MAX_CONNECTIONS,
                 logger: logging.Logger | None = None, registry: CollectorRegistry | None = None) -> None:
        """`lookups` is handed to every route's handler; `logger` names the decisions' log lines; `registry`
        counts the answers (admission.metrics); the component serves it elsewhere (runtime.health on loopback,
        published by kube-rbac-proxy), never on this port."""
        self.routes, self.lookups = dict(routes), lookups
        self.metrics = AdmissionMetrics(registry, sorted(self.routes)) if registry is not None else None
        self.tls = _Tls(cert_file, key_file)
        self.decider = decider or Decider(logger=logger)
        self.slots = threading.BoundedSemaphore(max_connections)
        self.refused, self.refused_logged = 0, float("-inf")
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # decisions are logged by admission.decide
                pass

            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?", 1)[0]
                if path in ("/healthz", "/readyz", "/livez"):
                    self._send(200, b"ok\n", "text/plain; charset=utf-8")
                else:
                    self._send(404, b"not found\n", "text/plain; charset=utf-8")

            def do_POST(self) -> None:  # noqa: N802
                path = self.path.split("?", 1)[0]
                route = outer.routes.get(path)
                if route is None:
                    self._send(404, b"not found\n", "text/plain; charset=utf-8")
                    return
                try:
                    length = int(self.headers.get("Content-Length") or "-1")
                except ValueError:
                    length = -1
                if length < 0 or length > MAX_BODY:
                    status = 413 if length > MAX_BODY else 411
                    answer = review.response("", False, f"AdmissionReview: body length must be given and at most "
                                                        f"{MAX_BODY} bytes", code=400)
                    self.close_connection = True  # the body is not read
                else:
                    started = time.monotonic()
                    status, answer = outer.decider.decide(self.rfile.read(length), route, outer.lookups)
                    if outer.metrics is not None:
                        outer.metrics.observe(path, answer, time.monotonic() - started)
                self._send(status, json.dumps(answer).encode(), "application/json")

            def _send(self, code: int, body: bytes, ctype: str) -> None:
                reply(self, code, body, ctype)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False

            def process_request(self, request: Any, client_address: Any) -> None:
                if not outer.slots.acquire(blocking=False):
                    outer.refused += 1
                    now = time.monotonic()
                    if now - outer.refused_logged >= REFUSED_LOG_EVERY:  # a flood must not flood the log
                        outer.refused_logged = now
                        log.warning("connection from %s refused: %d connections are open (%d refused so far)",
                                    client_address[0], max_connections, outer.refused)
                    self.shutdown_request(request)
                    return
                try:
                    super().process_request(request, client_address)
                except BaseException:
                    outer.slots.release()
                    raise

            def process_request_thread(self, request: Any, client_address: Any) -> None:
                try:
                    super().process_request_thread(request, client_address)
                finally:
                    outer.slots.release()

            def finish_request(self, request: Any, client_address: Any) -> None:
                request.settimeout(SOCKET_TIMEOUT)
                # headers and body leave in separate writes: without this, Nagle meets delayed ACK (+40 ms)
                request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                outer.tls.maybe_reload()
                try:
                    conn = outer.tls.context.wrap_socket(request, server_side=True)
                except (ssl.SSLError, OSError) as exc:
                    log.debug("TLS handshake with %s failed: %s", client_address[0], exc)
                    return
                try:
                    Handler(conn, client_address, self)
                finally:
                    with contextlib.suppress(OSError):
                        conn.shutdown(socket.SHUT_RDWR)
                    conn.close()

            def handle_error(self, request: Any, client_address: Any) -> None:
                log.debug("connection from %s ended with an error", client_address[0])

        self.httpd = Server(bind(address, "0.0.0.0"), Handler)  # noqa: S104 - pod IP

    def stop(self) -> None:
        super().stop()
        self.decider.close()

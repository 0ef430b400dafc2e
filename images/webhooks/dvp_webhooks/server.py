# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The HTTPS server: POST <route path> takes an AdmissionReview; GET /healthz and /readyz for probes.

TLS is negotiated in the connection's own thread (a slow client never blocks accept); every socket has a
timeout; bodies are bounded. The certificate pair is re-read when its files change (the certificate hook
rotates the Secret; the kubelet swaps the files)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import ssl
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .admission import decide
from .domain import review
from .handlers import Route
from .lookups import Lookups

log = logging.getLogger("dvp_webhooks")
MAX_BODY = 8 << 20  # object + oldObject of the largest allowed objects (etcd's limit is 1.5 MiB each)
SOCKET_TIMEOUT = 15.0  # above the webhook timeouts (10 s / 30 s are the API server's side)


class _Tls:
    def __init__(self, cert_file: str, key_file: str) -> None:
        self.cert_file, self.key_file = cert_file, key_file
        self._lock = threading.Lock()
        self._stamp: tuple[float, float] | None = None
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.minimum_version = ssl.TLSVersion.TLSv1_2
        self.reload()

    def reload(self) -> None:
        stamp = (os.stat(self.cert_file).st_mtime, os.stat(self.key_file).st_mtime)
        with self._lock:
            if stamp != self._stamp:
                self.context.load_cert_chain(self.cert_file, self.key_file)
                self._stamp = stamp

    def maybe_reload(self) -> None:
        try:
            self.reload()
        except (OSError, ssl.SSLError) as exc:  # mid-rotation: keep serving the pair we have
            log.warning("TLS certificate reload failed: %s", exc)


class WebhookServer:
    def __init__(self, address: str, routes: Mapping[str, Route], lookups: Lookups, cert_file: str,
                 key_file: str) -> None:
        host, _, port = address.rpartition(":")
        self.routes, self.lookups = dict(routes), lookups
        self.tls = _Tls(cert_file, key_file)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # decisions are logged by admission.decide
                pass

            def do_GET(self) -> None:  # noqa: N802
                if self.path.split("?", 1)[0] in ("/healthz", "/readyz", "/livez"):
                    self._send(200, b"ok\n", "text/plain; charset=utf-8")
                else:
                    self._send(404, b"not found\n", "text/plain; charset=utf-8")

            def do_POST(self) -> None:  # noqa: N802
                route = outer.routes.get(self.path.split("?", 1)[0])
                if route is None:
                    self._send(404, b"not found\n", "text/plain; charset=utf-8")
                    return
                try:
                    length = int(self.headers.get("Content-Length") or "-1")
                except ValueError:
                    length = -1
                if length < 0 or length > MAX_BODY:
                    answer = review.response("", False, f"AdmissionReview: body length {length} is not in "
                                                        f"0..{MAX_BODY} bytes", code=400)
                    self.close_connection = True
                else:
                    answer = decide(self.rfile.read(length), route, outer.lookups)
                self._send(200, json.dumps(answer).encode(), "application/json")

            def _send(self, code: int, body: bytes, ctype: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

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

        self.httpd = Server((host.strip("[]") or "0.0.0.0", int(port)), Handler)  # noqa: S104 - pod IP
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def start(self) -> WebhookServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.2,), name="webhooks",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An HTTP server run in a thread of its own: what the admission server and the health server share."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

POLL = 0.2  # seconds between serve_forever's checks for shutdown(): how long stop() waits at most


def bind(address: str, default_host: str) -> tuple[str, int]:
    """`host:port` (IPv6 hosts in brackets) as a socket address; an empty host is `default_host`."""
    host, _, port = address.rpartition(":")
    return host.strip("[]") or default_host, int(port)


def reply(handler: BaseHTTPRequestHandler, code: int, body: bytes, content_type: str) -> None:
    """One whole answer with its length (keep-alive connections know where it ends)."""
    handler.send_response(code)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class Serving:
    """`httpd` is set by the subclass; start() serves it in a daemon thread named `thread_name`, stop() ends it
    and closes the socket."""

    thread_name = "http"
    httpd: ThreadingHTTPServer

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def address(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"{host}:{port}"

    def start(self) -> Self:
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(POLL,), name=self.thread_name,
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

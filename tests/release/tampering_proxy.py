# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A registry mirror that lies: it forwards GET/HEAD to the real registry and flips one byte of one blob on the
way back, keeping its headers (size, digest). crane's registry checks its own disk, so a blob altered there is
only ever missing; what the client must catch by hashing is a blob altered between the registry and itself."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests


@contextlib.contextmanager
def serve(upstream: str, blob_digest: str) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            res = requests.request(self.command, f"http://{upstream}{self.path}", timeout=30,
                                   headers={k: v for k, v in self.headers.items() if k.lower() != "host"})
            body = res.content
            if self.command == "GET" and self.path.endswith(f"/blobs/{blob_digest}") and body:
                body = bytes([body[0] ^ 0xFF]) + body[1:]
            self.send_response(res.status_code)
            for key, value in res.headers.items():
                if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command == "GET":
                self.wfile.write(body)

        do_GET = do_HEAD = _forward

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

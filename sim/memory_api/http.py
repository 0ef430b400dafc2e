# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The in-memory API on the wire: an HTTP(S) server on 127.0.0.1 translating requests to the same store and
verbs MemoryTransport answers, for the tests of the client's own wire behaviour (retries, Retry-After, error
bodies, TLS, bearer tokens, chunked watches, 410) and bench/dvp_client.py.

Test controls beside the API: `script()` answers the next matching requests with a given status, body and
headers (before the token is checked, as a proxy in front of the API would); `requests` and `headers` record
what arrived; `max_watch_seconds` ends every watch early, as kube-apiserver ends watches on its own schedule.
DVP's controllers write as MemoryApi does (`put`, `remove`; `peek` reads without a request), and `compact()`
forgets the watch history (410 Gone from an older resourceVersion).
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from dvp_common.kube.resources import Resource

from . import MemoryApi
from .store import ApiAnswer, Obj
from .transport import MemoryTransport, target

__all__ = ["HttpApi", "Scripted"]


@dataclass
class Scripted:
    method: str
    path_part: str
    status: int
    body: Any
    headers: dict[str, str]
    times: int


class HttpApi:
    def __init__(self, memory: MemoryApi | None = None, *, token: str | None = None,
                 tls: ssl.SSLContext | None = None, max_watch_seconds: float = 300.0) -> None:
        self.memory = memory if memory is not None else MemoryApi()
        self.token = token
        self.max_watch_seconds = max_watch_seconds
        self.scripted: list[Scripted] = []
        self.requests: list[tuple[str, str, dict[str, list[str]]]] = []  # (method, path, query)
        self.headers: list[dict[str, str]] = []
        self.stopping = threading.Event()
        self.verbs = self.memory.client().transport
        assert isinstance(self.verbs, MemoryTransport)
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"api": self}))
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.memory.store.wake()
        self.httpd.shutdown()
        self.httpd.server_close()

    # test controls ------------------------------------------------------------------------------------------
    def script(self, method: str, path_part: str, status: int, body: Any = None,
               headers: dict[str, str] | None = None, times: int = 1) -> None:
        """The next `times` requests of `method` whose path contains `path_part` get this answer instead."""
        self.scripted.append(Scripted(method, path_part, status, {} if body is None else body, headers or {},
                                      times))

    def put(self, res: Resource, obj: Obj, namespace: str | None = None) -> Obj:
        return self.memory.put(res, obj, namespace)

    def remove(self, res: Resource, name: str, namespace: str | None = None) -> None:
        self.memory.remove(res, name, namespace)

    def peek(self, res: Resource, name: str, namespace: str | None = None) -> Obj | None:
        return self.memory.peek(res, name, namespace)

    def compact(self) -> None:
        self.memory.store.compact()

    def count(self, method: str | None = None, path_part: str = "", watch: bool | None = None) -> int:
        return sum(1 for m, p, q in list(self.requests)
                   if (method is None or m == method) and path_part in p and (watch is None or ("watch" in q) == watch))

    def _scripted(self, method: str, path: str) -> Scripted | None:
        for s in self.scripted:
            if s.method == method and s.path_part in path and s.times > 0:
                s.times -= 1
                return s
        return None


class _Handler(BaseHTTPRequestHandler):
    api: HttpApi
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _status(self, code: int, reason: str, message: str) -> None:
        self._send(code, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                          "message": message, "reason": reason, "code": code})

    def do_GET(self) -> None:  # noqa: N802
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._handle("PUT")

    def do_PATCH(self) -> None:  # noqa: N802
        self._handle("PATCH")

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle("DELETE")

    def _handle(self, method: str) -> None:
        api = self.api
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        api.requests.append((method, url.path, query))
        api.headers.append(dict(self.headers))
        size = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(size) if size else b""
        scripted = api._scripted(method, url.path)
        if scripted is not None:
            self._send(scripted.status, scripted.body, scripted.headers)
            return
        if api.token and self.headers.get("Authorization") != f"Bearer {api.token}":
            self._status(401, "Unauthorized", "Unauthorized")
            return
        parts = url.path.strip("/").split("/")
        if not (parts[0] == "api" and len(parts) >= 3 or parts[0] == "apis" and len(parts) >= 4):
            self._status(404, "NotFound", "the server could not find the requested resource")
            return
        t = target(url.path)
        params = {k: v[0] for k, v in query.items()}
        ctype = self.headers.get("Content-Type", "").split(";")[0] or None
        if method == "GET" and t.name is None and params.get("watch") in ("1", "true"):
            self._watch(t, params)
            return
        try:
            body = (raw.decode() if ctype == "application/apply-patch+yaml" else json.loads(raw)) if raw else None
            out = api.verbs.answer(t, method, params, body, ctype)
        except ApiAnswer as exc:
            self._status(exc.status, exc.reason, exc.message)
            return
        except ValueError as exc:
            self._status(400, "BadRequest", f"the body is not JSON: {exc}")
            return
        self._send(201 if method == "POST" else 200, out)

    def _watch(self, t: Any, params: dict[str, str]) -> None:
        api, store = self.api, self.api.memory.store
        labels, fields, ns = params.get("labelSelector"), params.get("fieldSelector"), t.namespace or None
        since = params.get("resourceVersion") or ""
        seconds = min(float(params.get("timeoutSeconds") or 1800), api.max_watch_seconds)
        if since in ("", "0"):
            first, rv = store.start_events(t.kind, ns, labels, fields)
        else:
            first, rv = [], int(since)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        events = store.watch(t.kind, ns, labels, fields, rv, time.monotonic() + seconds, api.stopping,
                             time.monotonic)
        try:
            for event in _chain(first, events):
                data = json.dumps(event).encode() + b"\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


def _chain(first: list[Any], rest: Any) -> Any:
    yield from first
    yield from rest

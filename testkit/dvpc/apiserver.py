# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A small in-memory Kubernetes-like API server on 127.0.0.1 for the client's unit tests.

It keeps resourceVersions, answers create/get/list/put/patch/delete and watches from a resourceVersion,
and can be told to answer the next matching requests with a scripted status (error-mapping tests) or to
forget its history (410 Gone). Real-API tests use testkit/harness.
"""

from __future__ import annotations

import copy
import json
import re
import ssl
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sim.kube_match import field_match, label_match, merge_patch  # noqa: F401 - dvpc_verbs takes them from here

PATH = re.compile(
    r"^/(?:api/(?P<cv>v1)|apis/(?P<g>[^/]+)/(?P<v>[^/]+))(?:/namespaces/(?P<ns>[^/]+))?/(?P<plural>[^/]+)"
    r"(?:/(?P<name>[^/]+))?(?:/(?P<sub>[^/]+))?$"
)


@dataclass
class Scripted:
    method: str
    path_part: str
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    times: int


@dataclass
class State:
    token: str | None = None
    objects: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)  # (coll, ns, name)
    events: list[tuple[int, str, str, dict[str, Any]]] = field(default_factory=list)  # (rv, type, coll, obj)
    rv: int = 100
    oldest_rv: int = 0  # watches from below this get 410
    scripted: list[Scripted] = field(default_factory=list)
    requests: list[tuple[str, str, dict[str, list[str]]]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    max_watch_seconds: float = 2.0
    cond: threading.Condition = field(default_factory=threading.Condition)


class FakeApiServer:
    def __init__(self, token: str | None = None, tls: ssl.SSLContext | None = None) -> None:
        self.state = State(token=token)
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def stop(self) -> None:
        with self.state.cond:
            self.state.max_watch_seconds = 0
            self.state.cond.notify_all()
        self.httpd.shutdown()
        self.httpd.server_close()

    # test controls ------------------------------------------------------------------------------------------
    def script(self, method: str, path_part: str, status: int, body: dict[str, Any] | None = None,
               headers: dict[str, str] | None = None, times: int = 1) -> None:
        self.state.scripted.append(Scripted(method, path_part, status, body or {}, headers or {}, times))

    def compact(self) -> None:
        """Forget the event history: watches from an older resourceVersion now get 410 Gone."""
        with self.state.cond:
            self.state.oldest_rv = self.state.rv + 1
            self.state.events.clear()

    def put_object(self, coll: str, obj: dict[str, Any]) -> dict[str, Any]:
        """Store (create or overwrite) an object directly, as a controller would, and emit its event."""
        with self.state.cond:
            md = obj.setdefault("metadata", {})
            key = (coll, md.get("namespace", ""), md["name"])
            kind = "MODIFIED" if key in self.state.objects else "ADDED"
            md.setdefault("uid", str(uuid.uuid4()))
            _commit(self.state, key, obj, kind)
            return copy.deepcopy(obj)

    def remove_object(self, coll: str, namespace: str, name: str) -> None:
        with self.state.cond:
            obj = self.state.objects.pop((coll, namespace, name))
            obj["metadata"]["_coll"] = coll
            _commit(self.state, None, obj, "DELETED")

    def count(self, method: str | None = None, path_part: str = "", watch: bool | None = None) -> int:
        return sum(1 for m, p, q in list(self.state.requests)
                   if (method is None or m == method) and path_part in p
                   and (watch is None or ("watch" in q) == watch))


def _commit(state: State, key: tuple[str, str, str] | None, obj: dict[str, Any], kind: str) -> None:
    state.rv += 1
    obj["metadata"]["resourceVersion"] = str(state.rv)
    if key is not None:
        state.objects[key] = obj
    coll = key[0] if key else obj["metadata"].get("_coll", "")
    state.events.append((state.rv, kind, coll, copy.deepcopy(obj)))
    state.cond.notify_all()


class _Handler(BaseHTTPRequestHandler):
    state: State
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

    def _status(self, code: int, reason: str, message: str, name: str = "", kind: str = "") -> None:
        self._send(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code,
                          "reason": reason, "message": message, "details": {"name": name, "kind": kind}})

    def _body(self) -> Any:
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n)) if n else None

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
        st = self.state
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        st.requests.append((method, url.path, query))
        st.headers.append(dict(self.headers))
        body = self._body()
        for s in st.scripted:
            if s.method == method and s.path_part in url.path and s.times > 0:
                s.times -= 1
                self._send(s.status, s.body, s.headers)
                return
        if st.token and self.headers.get("Authorization") != f"Bearer {st.token}":
            self._status(401, "Unauthorized", "Unauthorized")
            return
        m = PATH.match(url.path)
        if not m:
            self._status(404, "NotFound", "the server could not find the requested resource")
            return
        coll = f"{m['g'] or ''}/{m['v'] or m['cv']}/{m['plural']}"
        ns, name, sub = m["ns"] or "", m["name"], m["sub"]
        q = {k: v[0] for k, v in query.items()}
        from testkit.dvpc.verbs import dispatch  # the verbs live beside, to keep both files small

        dispatch(self, method, coll, ns, name, sub, q, body)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""/healthz, /readyz and /metrics on one small HTTP server (bind it to 127.0.0.1 or the pod IP)."""

from __future__ import annotations

from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from ..serving import Serving, bind, reply

Check = Callable[[], bool | str | None]  # True/None: fine; False or a message: failing


def _run(checks: dict[str, Check]) -> tuple[bool, str]:
    lines, ok = [], True
    for name, check in sorted(checks.items()):
        try:
            result = check()
        except Exception as exc:  # noqa: BLE001 - a crashing check is a failing check
            result = f"{type(exc).__name__}"
        good = result is True or result is None
        ok &= good
        lines.append(f"[{'+' if good else '-'}]{name} {'ok' if good else 'failed: ' + str(result or '')}".rstrip())
    return ok, "\n".join(lines + ["ok" if ok else "failed"]) + "\n"


class HealthServer(Serving):
    thread_name = "health"

    def __init__(self, address: str = "127.0.0.1:8081", registry: CollectorRegistry | None = None) -> None:
        self.registry = registry
        self.liveness: dict[str, Check] = {}
        self.readiness: dict[str, Check] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # probes every few seconds: keep the logs quiet
                pass

            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?", 1)[0]
                if path in ("/healthz", "/livez"):
                    ok, text = _run(server.liveness)
                    self._reply(200 if ok else 500, text.encode(), "text/plain; charset=utf-8")
                elif path == "/readyz":
                    ok, text = _run({**server.liveness, **server.readiness})
                    self._reply(200 if ok else 500, text.encode(), "text/plain; charset=utf-8")
                elif path == "/metrics" and server.registry is not None:
                    self._reply(200, generate_latest(server.registry), CONTENT_TYPE_LATEST)
                else:
                    self._reply(404, b"not found\n", "text/plain; charset=utf-8")

            def _reply(self, code: int, body: bytes, ctype: str) -> None:
                reply(self, code, body, ctype)

        self.httpd = ThreadingHTTPServer(bind(address, "127.0.0.1"), Handler)
        self.httpd.daemon_threads = True

    def add_liveness(self, name: str, check: Check) -> None:
        self.liveness[name] = check

    def add_readiness(self, name: str, check: Check) -> None:
        self.readiness[name] = check

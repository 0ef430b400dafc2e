# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""HTTPS AdmissionReview endpoint (:9443): DeckhouseMachineTemplate immutability, DeckhouseMachine validation.

Only translates AdmissionReview <-> domain/admission.py. Paths follow controller-runtime's naming so a
ValidatingWebhookConfiguration reads the same as for a Go provider.
"""

from __future__ import annotations

import json
import logging
import ssl
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from capdvp.domain import admission

log = logging.getLogger(__name__)

MACHINE_PATH = "/validate-infrastructure-cluster-x-k8s-io-v1alpha1-deckhousemachine"
TEMPLATE_PATH = "/validate-infrastructure-cluster-x-k8s-io-v1alpha1-deckhousemachinetemplate"
DRY_RUN_ANNOTATION = "topology.cluster.x-k8s.io/dry-run"
MAX_BODY = 3 * 1024 * 1024

Validator = Callable[[str, Mapping, Mapping | None], str | None]


def _template(operation: str, obj: Mapping, old: Mapping | None) -> str | None:
    # ClusterClass' topology controller checks templates with a server-side-apply dry run: let it through.
    if DRY_RUN_ANNOTATION in ((obj.get("metadata") or {}).get("annotations") or {}):
        return None
    return admission.validate_template(operation, obj, old)


ROUTES: dict[str, Validator] = {MACHINE_PATH: admission.validate_machine, TEMPLATE_PATH: _template}


def review(path: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """AdmissionReview in, AdmissionReview out; a malformed review is denied, never crashes the server."""
    request = body.get("request") or {}
    uid = request.get("uid", "")
    validator = ROUTES.get(path)
    if validator is None:
        error: str | None = f"no validator at {path}"
    elif body.get("kind") != "AdmissionReview" or not isinstance(request.get("object"), dict) and request.get(
            "operation") != "DELETE":
        error = "malformed AdmissionReview: request.object is missing"
    else:
        error = validator(request.get("operation", ""), request.get("object") or {}, request.get("oldObject"))
    response: dict[str, Any] = {"uid": uid, "allowed": error is None}
    if error is not None:
        response["status"] = {"code": 403, "reason": "Forbidden", "message": error}
        log.info("denied %s %s: %s", request.get("operation"), path, error)
    return {"apiVersion": body.get("apiVersion", "admission.k8s.io/v1"), "kind": "AdmissionReview",
            "response": response}


class _Handler(BaseHTTPRequestHandler):
    server_version = "capdvp-webhook"

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        length = int(self.headers.get("Content-Length") or 0)
        if length <= 0 or length > MAX_BODY:
            self._send(400, {"error": "body missing or too large"})
            return
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError:
            self._send(400, {"error": "body is not JSON"})
            return
        if not isinstance(body, dict):
            self._send(400, {"error": "body is not an object"})
            return
        self._send(200, review(self.path.split("?", 1)[0], body))

    def _send(self, code: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt: str, *args: Any) -> None:
        log.debug("webhook: " + fmt, *args)


class WebhookServer:
    """TLS server; the certificate is re-read when its files change (the Secret is rotated in place)."""

    def __init__(self, host: str, port: int, cert_dir: Path, cert_name: str = "tls.crt",
                 key_name: str = "tls.key") -> None:
        self.cert, self.key = cert_dir / cert_name, cert_dir / key_name
        self.httpd = ThreadingHTTPServer((host, port), _Handler)
        self.httpd.daemon_threads = True
        self._stamp: tuple[float, float] | None = None
        self._ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        self._load()
        self._ctx.sni_callback = lambda sock, name, ctx: self._reload_if_changed()
        self.httpd.socket = self._ctx.wrap_socket(self.httpd.socket, server_side=True, do_handshake_on_connect=False)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def _load(self) -> None:
        self._ctx.load_cert_chain(self.cert, self.key)
        self._stamp = (self.cert.stat().st_mtime, self.key.stat().st_mtime)

    def _reload_if_changed(self) -> None:
        try:
            if (self.cert.stat().st_mtime, self.key.stat().st_mtime) != self._stamp:
                self._load()
                log.info("webhook certificate reloaded")
        except (OSError, ssl.SSLError) as exc:
            log.warning("webhook certificate reload failed, keeping the old one: %s", exc)

    def start(self) -> None:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="webhook", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

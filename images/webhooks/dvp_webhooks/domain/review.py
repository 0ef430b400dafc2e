# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""AdmissionReview v1: parse a request body into a typed Request, build the response body.

A body that is not a v1 AdmissionReview with a request gives BadReview (one line naming what is wrong); the
server answers it with a denial, never a crash.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

API_VERSION = "admission.k8s.io/v1"
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")


class BadReview(ValueError):
    def __init__(self, message: str, uid: str = "") -> None:
        super().__init__(message)
        self.uid = uid


@dataclass(frozen=True)
class Request:
    uid: str
    operation: str
    kind: str  # request.kind.kind
    group: str
    name: str
    namespace: str
    obj: dict[str, Any] | None
    old: dict[str, Any] | None
    dry_run: bool = False

    @property
    def current(self) -> dict[str, Any]:
        """The object the request is about: the new one, or the old one on DELETE."""
        return self.obj if self.obj is not None else (self.old or {})

    def ref(self, name: str | None = None) -> str:
        """`kind.group "name"` as Deckhouse's webhooks name objects (namespaced: "namespace/name")."""
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        name = name if name is not None else self.name
        return f'{kind} "{self.namespace}/{name}"' if self.namespace else f'{kind} "{name}"'


def _object(value: Any, field: str, uid: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadReview(f"AdmissionReview: request.{field} is not an object", uid)
    return value


def parse(body: bytes) -> Request:
    try:
        review = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadReview(f"AdmissionReview: body is not JSON ({type(exc).__name__})") from None
    if not isinstance(review, dict):
        raise BadReview("AdmissionReview: body is not a JSON object")
    if review.get("apiVersion") != API_VERSION or review.get("kind") != "AdmissionReview":
        raise BadReview(f"AdmissionReview: expected apiVersion {API_VERSION} kind AdmissionReview, got "
                        f"{str(review.get('apiVersion'))[:60]!r} {str(review.get('kind'))[:60]!r}")
    req = review.get("request")
    if not isinstance(req, dict):
        raise BadReview("AdmissionReview: request is missing")
    uid = req.get("uid")
    if not isinstance(uid, str) or not uid:
        raise BadReview("AdmissionReview: request.uid is missing")
    op = req.get("operation")
    if op not in OPERATIONS:
        raise BadReview(f"AdmissionReview: request.operation {str(op)[:30]!r} is not one of {', '.join(OPERATIONS)}",
                        uid)
    kind = req.get("kind")
    if not isinstance(kind, dict) or not isinstance(kind.get("kind"), str):
        raise BadReview("AdmissionReview: request.kind.kind is missing", uid)
    obj, old = _object(req.get("object"), "object", uid), _object(req.get("oldObject"), "oldObject", uid)
    if op in ("CREATE", "UPDATE") and obj is None:
        raise BadReview(f"AdmissionReview: request.object is missing for {op}", uid)
    if op == "UPDATE" and old is None:
        raise BadReview("AdmissionReview: request.oldObject is missing for UPDATE", uid)
    name = req.get("name") or ((obj or old or {}).get("metadata") or {}).get("name") or ""
    return Request(uid, op, kind["kind"], str(kind.get("group") or ""), str(name), str(req.get("namespace") or ""),
                   obj, old, bool(req.get("dryRun")))


def response(uid: str, allowed: bool, message: str = "", warnings: tuple[str, ...] = (),
             patch: tuple[dict[str, Any], ...] = (), code: int = 200) -> dict[str, Any]:
    resp: dict[str, Any] = {"uid": uid, "allowed": allowed}
    if not allowed:
        resp["status"] = {"code": code, "message": message, "reason": "Forbidden" if code == 403 else "BadRequest"
                          if code == 400 else "InternalError"}
    if warnings:
        resp["warnings"] = list(warnings)
    if patch:
        resp["patchType"] = "JSONPatch"
        resp["patch"] = base64.b64encode(json.dumps(list(patch)).encode()).decode()
    return {"apiVersion": API_VERSION, "kind": "AdmissionReview", "response": resp}

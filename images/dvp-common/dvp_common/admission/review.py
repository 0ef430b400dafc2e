# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""AdmissionReview v1: parse a request body into a typed Request, build the response body.

A body that is not an AdmissionReview (v1, or v1beta1 answered in kind) with a request gives BadReview (one line
naming what is wrong, never a value from the body); the server answers it with a denial carrying the request's uid
when one was readable, and with HTTP 400 when not. Never a crash.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

API_VERSION = "admission.k8s.io/v1"
API_VERSIONS = (API_VERSION, "admission.k8s.io/v1beta1")  # v1beta1 has the same request and response fields
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
MAX_DEPTH = 100  # far beyond any object these webhooks admit; deeper bodies are refused before any rule runs


class BadReview(ValueError):
    """The body is not a review we can answer properly. `unparsable`: not even a uid could be read (HTTP 400)."""

    def __init__(self, message: str, uid: str = "", api_version: str = API_VERSION) -> None:
        super().__init__(message)
        self.uid, self.api_version = uid, api_version

    @property
    def unparsable(self) -> bool:
        return not self.uid


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
    username: str = ""  # request.userInfo.username: who asks, as the API server authenticated them
    api_version: str = API_VERSION

    @property
    def current(self) -> dict[str, Any]:
        """The object the request is about: the new one, or the old one on DELETE."""
        return self.obj if self.obj is not None else (self.old or {})

    def ref(self, name: str | None = None) -> str:
        """`kind.group "name"` as Deckhouse's webhooks name objects (namespaced: "namespace/name")."""
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        name = name if name is not None else self.name
        return f'{kind} "{self.namespace}/{name}"' if self.namespace else f'{kind} "{name}"'


def _object(value: Any, field: str, uid: str, api_version: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadReview(f"AdmissionReview: request.{field} is not an object", uid, api_version)
    return value


def _text(req: dict[str, Any], key: str, uid: str, api_version: str, limit: int = 253) -> str:
    value = req.get(key)
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > limit:
        raise BadReview(f"AdmissionReview: request.{key} is not a string of at most {limit} characters", uid,
                        api_version)
    return value


def depth_exceeds(value: Any, limit: int) -> bool:
    """Whether nesting goes deeper than `limit` (iterative: a deep body cannot exhaust the stack here)."""
    stack = [(value, 0)]
    while stack:
        node, level = stack.pop()
        if level > limit:
            return True
        if isinstance(node, dict):
            stack.extend((v, level + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, level + 1) for v in node)
    return False


def parse(body: bytes) -> Request:
    try:
        review = json.loads(body)
    except RecursionError:
        raise BadReview(f"AdmissionReview: body is nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadReview(f"AdmissionReview: body is not JSON ({type(exc).__name__})") from None
    if not isinstance(review, dict):
        raise BadReview("AdmissionReview: body is not a JSON object")
    version = review.get("apiVersion")
    if version not in API_VERSIONS or review.get("kind") != "AdmissionReview":
        raise BadReview(f"AdmissionReview: expected apiVersion {' or '.join(API_VERSIONS)} kind AdmissionReview")
    req = review.get("request")
    if not isinstance(req, dict):
        raise BadReview("AdmissionReview: request is missing", api_version=version)
    uid = req.get("uid")
    if not isinstance(uid, str) or not uid or len(uid) > 128:
        raise BadReview("AdmissionReview: request.uid is missing", api_version=version)
    if depth_exceeds(review, MAX_DEPTH):
        raise BadReview(f"AdmissionReview: body is nested deeper than {MAX_DEPTH} levels", uid, version)
    op = req.get("operation")
    if op not in OPERATIONS:
        raise BadReview(f"AdmissionReview: request.operation is not one of {', '.join(OPERATIONS)}", uid, version)
    kind = req.get("kind")
    if not isinstance(kind, dict) or not isinstance(kind.get("kind"), str) \
            or not isinstance(kind.get("group") or "", str):
        raise BadReview("AdmissionReview: request.kind.kind is missing", uid, version)
    obj = _object(req.get("object"), "object", uid, version)
    old = _object(req.get("oldObject"), "oldObject", uid, version)
    if op in ("CREATE", "UPDATE") and obj is None:
        raise BadReview(f"AdmissionReview: request.object is missing for {op}", uid, version)
    if op == "UPDATE" and old is None:
        raise BadReview("AdmissionReview: request.oldObject is missing for UPDATE", uid, version)
    user = req.get("userInfo")
    username = user.get("username") if isinstance(user, dict) else None
    name = _text(req, "name", uid, version) or _meta_name(obj, old)
    return Request(uid, op, kind["kind"], kind.get("group") or "", name, _text(req, "namespace", uid, version),
                   obj, old, req.get("dryRun") is True, username if isinstance(username, str) else "", version)


def _meta_name(obj: dict[str, Any] | None, old: dict[str, Any] | None) -> str:
    meta = (obj if obj is not None else old or {}).get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and len(name) <= 253 else ""


def response(uid: str, allowed: bool, message: str = "", warnings: tuple[str, ...] = (),
             patch: tuple[dict[str, Any], ...] = (), code: int = 200, api_version: str = API_VERSION) -> dict[str, Any]:
    resp: dict[str, Any] = {"uid": uid, "allowed": allowed}
    if not allowed:
        resp["status"] = {"code": code, "message": message, "reason": "Forbidden" if code == 403 else "BadRequest"
                          if code == 400 else "InternalError"}
    if warnings:
        resp["warnings"] = list(warnings)
    if patch:
        resp["patchType"] = "JSONPatch"
        resp["patch"] = base64.b64encode(json.dumps(list(patch)).encode()).decode()
    return {"apiVersion": api_version, "kind": "AdmissionReview", "response": resp}

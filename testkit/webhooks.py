# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""AdmissionReview builders (the shape the API server sends) and an in-memory Lookups for rule tests."""

from __future__ import annotations

import base64
import json
from typing import Any

from dvp_common.admission.decider import decide
from dvp_webhooks.handlers import ROUTES
from dvp_webhooks.lookups import Lookups

UID = "705ab4f5-6393-11e8-b7cc-42010a800002"
GROUPS = {"Secret": ("", "v1", "secrets"), "NodeGroup": ("deckhouse.io", "v1", "nodegroups"),
          "DVPInstanceClass": ("deckhouse.io", "v1alpha1", "dvpinstanceclasses"),
          "VolumeSnapshot": ("snapshot.storage.k8s.io", "v1", "volumesnapshots"),
          "VolumeSnapshotContent": ("snapshot.storage.k8s.io", "v1", "volumesnapshotcontents"),
          "VolumeSnapshotClass": ("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses")}


def body(kind: str, op: str, obj: dict | None, old: dict | None = None, namespace: str = "") -> bytes:
    group, version, resource = GROUPS[kind]
    named = obj if obj is not None else old
    req: dict[str, Any] = {
        "uid": UID, "kind": {"group": group, "version": version, "kind": kind},
        "resource": {"group": group, "version": version, "resource": resource},
        "requestKind": {"group": group, "version": version, "kind": kind},
        "name": named["metadata"]["name"], "operation": op,
        "userInfo": {"username": "admin", "groups": ["system:masters"]},
        "object": obj, "oldObject": old, "dryRun": False, "options": None,
    }
    if namespace:
        req["namespace"] = namespace
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req}).encode()


def allowed(*warnings: str, patch: list | None = None) -> dict:
    resp: dict[str, Any] = {"uid": UID, "allowed": True}
    if warnings:
        resp["warnings"] = list(warnings)
    if patch:
        resp["patchType"] = "JSONPatch"
        resp["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}


def denied(message: str, *warnings: str, code: int = 403, uid: str = UID) -> dict:
    reason = {403: "Forbidden", 400: "BadRequest"}.get(code, "InternalError")
    resp: dict[str, Any] = {"uid": uid, "allowed": False, "status": {"code": code, "message": message,
                                                                      "reason": reason}}
    if warnings:
        resp["warnings"] = list(warnings)
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}


class FakeLookups(Lookups):
    """The rules' view of the cluster, from lists; records what was asked."""

    def __init__(self, *, migrating: bool = False, instance_classes: list | None = None,
                 node_groups: list | None = None, pvcs: list | None = None, storage_classes: list | None = None,
                 snapshot_classes: list | None = None, fail: Exception | None = None) -> None:
        self._migrating, self.fail = migrating, fail
        self._ics = {o["metadata"]["name"]: o for o in instance_classes or []}
        self._ngs = node_groups or []
        self._pvcs = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in pvcs or []}
        self._scs = {o["metadata"]["name"]: o for o in storage_classes or []}
        self._vscs = snapshot_classes or []
        self.asked: list[str] = []

    def _ask(self, what: str) -> None:
        self.asked.append(what)
        if self.fail:
            raise self.fail

    def migrating(self) -> bool:
        self._ask("migrating")
        return self._migrating

    def instance_class(self, name: str) -> dict | None:
        self._ask(f"ic/{name}")
        return self._ics.get(name)

    def node_groups(self) -> list:
        self._ask("nodegroups")
        return self._ngs

    def pvc(self, namespace: str, name: str) -> dict | None:
        self._ask(f"pvc/{namespace}/{name}")
        return self._pvcs.get((namespace, name))

    def storage_class(self, name: str) -> dict | None:
        self._ask(f"sc/{name}")
        return self._scs.get(name) if name else None

    def snapshot_classes(self) -> list:
        self._ask("vsclasses")
        return self._vscs


def run(path: str, raw: bytes, lookups: Lookups | None = None) -> dict:
    mode = "validation" if path in ROUTES["validation"] else "snapshot"
    return decide(raw, ROUTES[mode][path], lookups or FakeLookups())

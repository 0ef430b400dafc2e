# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""In-memory stand-in for dvp_common.kube.KubeClient with the server semantics the reconcilers rely on.

resourceVersion/uid/generation, merge patches with a resourceVersion precondition (409), the status
subresource, finalizers with deletionTimestamp, delete preconditions, ownerReference garbage collection,
label selectors, scripted faults, and a count of every call (reads and writes per machine in tests).
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import itertools
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from dvp_common.kube import AlreadyExists, ApiError, Conflict, ListResult, NotFound, Resource
from dvp_common.rfc3339 import format_time

from sim.kube_match import merge_patch

STATUS_SUBRESOURCE = {"DeckhouseMachine", "DeckhouseCluster", "DeckhouseMachineTemplate", "Machine", "Cluster"}
WRITES = ("create", "patch", "delete")


def _locked(fn):
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        with self.lock:
            return fn(self, *args, **kwargs)
    return wrapper


def _selector(sel: str | dict | None) -> dict[str, str]:
    if not sel:
        return {}
    if isinstance(sel, dict):
        return dict(sel)
    return dict(part.split("=", 1) for part in sel.split(","))


class FakeApi:
    def __init__(self, name: str = "api", now: Callable[[], dt.datetime] | None = None) -> None:
        self.name = name
        self.objects: dict[tuple[str, str | None, str], dict] = {}
        self.calls: Counter[str] = Counter()
        self.log: list[tuple[str, str, str]] = []  # (verb, kind, name) of writes
        self.faults: list[tuple[str, str, str | None, ApiError]] = []
        self._rv = itertools.count(1)
        self.now = now or (lambda: dt.datetime.now(dt.UTC))
        self.lock = threading.RLock()  # the bench drives it from many workers

    # test helpers -------------------------------------------------------------------------------------------
    def fail(self, verb: str, kind: str, exc: ApiError, name: str | None = None) -> None:
        """The next matching call raises exc (once)."""
        self.faults.append((verb, kind, name, exc))

    def _fault(self, verb: str, res: Resource, name: str | None) -> None:
        for i, (v, k, n, exc) in enumerate(self.faults):
            if v == verb and k == res.kind and (n is None or n == name):
                del self.faults[i]
                raise exc

    @_locked
    def put(self, res: Resource, obj: dict, namespace: str | None = None) -> dict:
        """Store an object as-is (test setup; no call counted)."""
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        ns = namespace if res.namespaced else None
        if ns:
            meta["namespace"] = ns
        meta.setdefault("uid", str(uuid.uuid4()))
        meta["resourceVersion"] = str(next(self._rv))
        meta.setdefault("generation", 1)
        meta.setdefault("creationTimestamp", format_time(self.now()))
        obj.setdefault("apiVersion", res.api_version)
        obj.setdefault("kind", res.kind)
        self.objects[(res.kind, ns, meta["name"])] = obj
        return copy.deepcopy(obj)

    @_locked
    def peek(self, res: Resource, name: str, namespace: str | None = None) -> dict | None:
        obj = self.objects.get((res.kind, namespace if res.namespaced else None, name))
        return copy.deepcopy(obj) if obj else None

    @_locked
    def set_status(self, res: Resource, name: str, namespace: str | None, status: dict) -> None:
        obj = self.objects[(res.kind, namespace if res.namespaced else None, name)]
        obj["status"] = merge_patch(obj.get("status") or {}, status)
        obj["metadata"]["resourceVersion"] = str(next(self._rv))

    @_locked
    def kinds(self, kind: str) -> list[dict]:
        return [copy.deepcopy(o) for (k, _, _), o in sorted(self.objects.items()) if k == kind]

    def writes(self) -> int:
        return sum(self.calls[v] for v in WRITES)

    def reads(self) -> int:
        return self.calls["get"] + self.calls["list"]

    # verbs --------------------------------------------------------------------------------------------------
    def _key(self, res: Resource, name: str, namespace: str | None) -> tuple[str, str | None, str]:
        return (res.kind, namespace if res.namespaced else None, name)

    @_locked
    def get(self, res: Resource, name: str, namespace: str | None = None, subresource: str | None = None) -> dict:
        self.calls["get"] += 1
        self._fault("get", res, name)
        obj = self.objects.get(self._key(res, name, namespace))
        if obj is None:
            raise NotFound(f'{res.plural} "{name}" not found', kind=res.kind, name=name, reason="NotFound")
        return copy.deepcopy(obj)

    @_locked
    def list(self, res: Resource, namespace: str | None = None, *, label_selector=None, field_selector=None,
             limit=None, continue_=None, resource_version=None) -> ListResult:
        self.calls["list"] += 1
        self._fault("list", res, None)
        want = _selector(label_selector)
        items = [copy.deepcopy(o) for (k, ns, _), o in sorted(self.objects.items())
                 if k == res.kind and (not res.namespaced or namespace is None or ns == namespace)
                 and all((o["metadata"].get("labels") or {}).get(a) == b for a, b in want.items())]
        return ListResult(items, str(next(self._rv)))

    def list_all(self, res: Resource, namespace: str | None = None, *, label_selector=None, field_selector=None,
                 page_size: int = 500, deadline: float | None = None) -> ListResult:
        return self.list(res, namespace, label_selector=label_selector, field_selector=field_selector)

    @_locked
    def create(self, res: Resource, body: dict, namespace: str | None = None, *, get_existing: bool = False,
               field_manager: str | None = None) -> dict:
        self.calls["create"] += 1
        name = body["metadata"]["name"]
        self._fault("create", res, name)
        key = self._key(res, name, namespace)
        if key in self.objects:
            if get_existing:
                return copy.deepcopy(self.objects[key])
            raise AlreadyExists(f'{res.plural} "{name}" already exists', kind=res.kind, name=name,
                                reason="AlreadyExists", status=409)
        self.log.append(("create", res.kind, name))
        obj = copy.deepcopy(body)
        obj.get("metadata", {}).pop("resourceVersion", None)
        obj.pop("status", None)
        return self.put(res, obj, namespace)

    @_locked
    def patch(self, res: Resource, name: str, body: Any, namespace: str | None = None, *, patch_type: str = "merge",
              subresource: str | None = None, field_manager: str | None = None, force: bool = False) -> dict:
        self.calls["patch"] += 1
        self._fault("patch", res, name)
        key = self._key(res, name, namespace)
        obj = self.objects.get(key)
        if obj is None:
            raise NotFound(f'{res.plural} "{name}" not found', kind=res.kind, name=name)
        rv = (body.get("metadata") or {}).get("resourceVersion")
        if rv and rv != obj["metadata"]["resourceVersion"]:
            raise Conflict("the object has been modified; please apply your changes to the latest version",
                           kind=res.kind, name=name, reason="Conflict", status=409)
        body = copy.deepcopy(body)
        (body.get("metadata") or {}).pop("resourceVersion", None)
        if subresource == "status":
            body = {"status": body.get("status")}
        elif res.kind in STATUS_SUBRESOURCE:
            body.pop("status", None)
        new = merge_patch(obj, body)
        if new.get("spec") != obj.get("spec"):
            new["metadata"]["generation"] = int(obj["metadata"].get("generation") or 1) + 1
        self.log.append(("patch" if subresource != "status" else "patch-status", res.kind, name))
        if new == obj:
            return copy.deepcopy(obj)
        new["metadata"]["resourceVersion"] = str(next(self._rv))
        self.objects[key] = new
        if new["metadata"].get("deletionTimestamp") and not new["metadata"].get("finalizers"):
            self._remove(key)
        return copy.deepcopy(new)

    @_locked
    def delete(self, res: Resource, name: str, namespace: str | None = None, *, propagation=None,
               preconditions: dict | None = None, grace_period_seconds=None, missing_ok: bool = False) -> dict | None:
        self.calls["delete"] += 1
        self._fault("delete", res, name)
        key = self._key(res, name, namespace)
        obj = self.objects.get(key)
        if obj is None:
            if missing_ok:
                return None
            raise NotFound(f'{res.plural} "{name}" not found', kind=res.kind, name=name)
        if preconditions and preconditions.get("uid") not in (None, obj["metadata"]["uid"]):
            raise Conflict("Precondition failed: UID in precondition does not match", kind=res.kind, name=name)
        self.log.append(("delete", res.kind, name))
        if obj["metadata"].get("finalizers"):
            obj["metadata"].setdefault("deletionTimestamp", format_time(self.now()))
            obj["metadata"]["resourceVersion"] = str(next(self._rv))
            return copy.deepcopy(obj)
        self._remove(key)
        return {"kind": "Status", "status": "Success"}

    def _remove(self, key: tuple[str, str | None, str]) -> None:
        obj = self.objects.pop(key)
        uid = obj["metadata"]["uid"]
        # Garbage collection of dependents (background propagation, done at once).
        for k, o in list(self.objects.items()):
            refs = o["metadata"].get("ownerReferences") or []
            if any(ref.get("uid") == uid for ref in refs) and k in self.objects:
                if o["metadata"].get("finalizers"):
                    o["metadata"].setdefault("deletionTimestamp", format_time(self.now()))
                else:
                    self._remove(k)

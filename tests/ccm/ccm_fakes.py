# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An in-memory stand-in for KubeClient with the server semantics the CCM relies on, and cache views over it.

Merge patches (null deletes), metadata.resourceVersion and metadata.uid preconditions (409), the status
subresource, delete preconditions, AlreadyExists on create, label selectors; every call is logged as
(verb, kind, name[, subresource]) so tests assert the exact Kubernetes operations.
"""

from __future__ import annotations

import copy
import itertools
import uuid
from collections.abc import Callable
from typing import Any

from dvp_common.dvp import DVPConnection
from dvp_common.kube import AlreadyExists, Conflict, ListResult, NotFound, Resource

from sim.kube_match import merge_patch as merge

NS = "dvp-project"
UUID = "11111111-2222-3333-4444-555555555555"


class FakeKube:
    def __init__(self) -> None:
        self.objects: dict[tuple[str, str | None, str], dict] = {}
        self.calls: list[tuple[str, ...]] = []
        self._rv = itertools.count(1)
        self._stores: dict[str, Store] = {}

    # helpers for tests ---------------------------------------------------------------------------------------
    def put(self, res: Resource, obj: dict) -> dict:
        obj = copy.deepcopy(obj)
        md = obj.setdefault("metadata", {})
        md.setdefault("uid", str(uuid.uuid4()))
        md["resourceVersion"] = str(next(self._rv))
        obj.setdefault("apiVersion", res.api_version)
        obj.setdefault("kind", res.kind)
        self.objects[(res.plural, md.get("namespace") if res.namespaced else None, md["name"])] = obj
        return copy.deepcopy(obj)

    def obj(self, res: Resource, name: str, namespace: str | None = None) -> dict | None:
        found = self.objects.get((res.plural, namespace if res.namespaced else None, name))
        return copy.deepcopy(found) if found else None

    def writes(self) -> list[tuple[str, ...]]:
        return [c for c in self.calls if c[0] in ("create", "patch", "delete")]

    def store(self, res: Resource) -> Store:
        """The cache view of a kind: one per kind, so the indexes installed on it stay."""
        return self._stores.setdefault(res.plural, Store(self, res))

    # the KubeClient surface --------------------------------------------------------------------------------
    def _key(self, res: Resource, name: str, namespace: str | None) -> tuple[str, str | None, str]:
        return (res.plural, namespace if res.namespaced else None, name)

    def get(self, res: Resource, name: str, namespace: str | None = None, subresource: str | None = None) -> dict:
        self.calls.append(("get", res.kind, name))
        found = self.obj(res, name, namespace)
        if found is None:
            raise NotFound("not found", status=404, kind=res.kind, name=name, namespace=namespace or "")
        return found

    def list_all(self, res: Resource, namespace: str | None = None, *, label_selector: Any = None,
                 **_: Any) -> ListResult:
        self.calls.append(("list", res.kind, ""))
        sel = dict(label_selector or {}) if not isinstance(label_selector, str) else \
            dict(p.split("=", 1) for p in label_selector.split(","))
        items = [copy.deepcopy(o) for (plural, ns, _), o in self.objects.items()
                 if plural == res.plural and (namespace is None or ns == namespace)
                 and all(((o["metadata"].get("labels") or {}).get(k)) == v for k, v in sel.items())]
        return ListResult(items, "1")

    def create(self, res: Resource, body: dict, namespace: str | None = None, *, get_existing: bool = False,
               **_: Any) -> dict:
        name = body["metadata"]["name"]
        self.calls.append(("create", res.kind, name))
        ns = namespace or body["metadata"].get("namespace")
        if self.obj(res, name, ns) is not None:
            if get_existing:
                return self.get(res, name, ns)
            raise AlreadyExists("exists", status=409, kind=res.kind, name=name)
        body = copy.deepcopy(body)
        body["metadata"]["namespace"] = ns if res.namespaced else None
        if not res.namespaced:
            body["metadata"].pop("namespace")
        return self.put(res, body)

    def patch(self, res: Resource, name: str, body: dict, namespace: str | None = None, *,
              subresource: str | None = None, **_: Any) -> dict:
        self.calls.append(("patch", res.kind, name) + ((subresource,) if subresource else ()))
        current = self.obj(res, name, namespace)
        if current is None:
            raise NotFound("not found", status=404, kind=res.kind, name=name)
        body = copy.deepcopy(body)
        md = body.get("metadata") or {}
        for field in ("resourceVersion", "uid"):
            if field in md and md[field] != current["metadata"][field]:
                raise Conflict(f"{field} precondition failed", status=409, kind=res.kind, name=name)
        md.pop("resourceVersion", None)
        if subresource == "status":
            body = {"status": body.get("status")}
        else:
            body.pop("status", None)
        out = merge(current, body)
        out["metadata"]["uid"] = current["metadata"]["uid"]
        return self.put(res, out)

    def delete(self, res: Resource, name: str, namespace: str | None = None, *,
               preconditions: dict | None = None, missing_ok: bool = False, **_: Any) -> dict | None:
        self.calls.append(("delete", res.kind, name))
        current = self.obj(res, name, namespace)
        if current is None:
            if missing_ok:
                return None
            raise NotFound("not found", status=404, kind=res.kind, name=name)
        if preconditions and preconditions.get("uid") not in (None, current["metadata"]["uid"]):
            raise Conflict("uid precondition failed", status=409, kind=res.kind, name=name)
        del self.objects[self._key(res, name, namespace)]
        return current


class Store:
    """What an Informer offers the controllers (get by key, items, indexes), read live from the fake."""

    def __init__(self, kube: FakeKube, res: Resource) -> None:
        self.kube, self.res = kube, res
        self.index_fns: dict[str, Callable[[dict], list[str]]] = {}

    def get(self, key: str) -> dict | None:
        ns, _, name = key.rpartition("/")
        return self.kube.obj(self.res, name, ns or None)

    def items(self) -> list[dict]:
        return [copy.deepcopy(o) for (plural, _, _), o in self.kube.objects.items() if plural == self.res.plural]

    def add_index(self, name: str, fn: Callable[[dict], list[str]]) -> None:
        self.index_fns[name] = fn

    def by_index(self, name: str, value: str) -> list[dict]:
        if name not in self.index_fns:
            raise AssertionError(f"index {name!r} is not installed on the {self.res.kind} store")
        found = [o for o in self.items() if value in self.index_fns[name](o)]
        return sorted(found, key=lambda o: (o["metadata"].get("namespace") or "", o["metadata"]["name"]))

    def count(self, name: str, value: str) -> int:
        return len(self.by_index(name, value))

    def assume(self, obj: dict) -> None:
        """Reads are live here: nothing to cache."""


def dvp_connection(kube: FakeKube) -> DVPConnection:
    return DVPConnection(kube, NS, UUID)  # type: ignore[arg-type]

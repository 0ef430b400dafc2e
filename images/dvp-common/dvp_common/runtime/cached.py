# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A client whose reads are answered from informer caches, falling through to the API on a miss.

A miss goes live because informers usually see only objects with our labels: a same-named foreign object must
still be found (and refused), never mistaken for absent. Kinds a component may only `get` (no watch, e.g. DVP's
classes and images) can be remembered for a few seconds after they were found; absence is never remembered.
Writes, waits and watches always go to the API (every other attribute is the wrapped client's). A stale cached
object is harmless to a write: updates, patches and deletes carry its uid or resourceVersion, so the API refuses
them when the object changed or was replaced since.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..kube import ListResult, Resource
from .informer import Informer


class CachedClient:
    def __init__(self, client: Any, informers: Mapping[Resource, Informer],
                 remember: Mapping[Resource, float] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """`remember`: seconds a found object of that kind answers further gets without the API."""
        self.client, self.informers = client, dict(informers)
        self.remember, self.clock = dict(remember or {}), clock
        self._found: dict[tuple[Resource, str | None, str], tuple[float, dict]] = {}
        self._lock = threading.Lock()
        self.hits = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def get(self, res: Resource, name: str, namespace: str | None = None, subresource: str | None = None,
            **kw: Any) -> dict:
        inf = self.informers.get(res)
        if inf is not None and subresource is None and inf.synced.is_set():
            obj = inf.get(f"{namespace}/{name}" if res.namespaced and namespace else name)
            if obj is not None:
                self.hits += 1
                return copy.deepcopy(obj)
        ttl = self.remember.get(res) if subresource is None else None
        if ttl is None:
            return self.client.get(res, name, namespace, subresource, **kw)
        key = (res, namespace if res.namespaced else None, name)
        with self._lock:
            until, found = self._found.get(key, (0.0, None))
        if found is not None and self.clock() < until:
            self.hits += 1
            return copy.deepcopy(found)
        obj = self.client.get(res, name, namespace, **kw)  # NotFound propagates and is not remembered
        with self._lock:
            self._found[key] = (self.clock() + ttl, copy.deepcopy(obj))
        return obj

    def _cached(self, res: Resource, namespace: str | None, kw: Mapping[str, Any]) -> ListResult | None:
        """From the cache when the informer's selector is part of the one asked for (it then holds every match)."""
        inf = self.informers.get(res)
        wanted = kw.get("label_selector")
        if (inf is None or not inf.synced.is_set() or not isinstance(wanted, dict)
                or set(kw) - {"label_selector", "deadline"} or inf.namespace not in (None, namespace)):
            return None
        have = inf.label_selector or {}
        if not isinstance(have, dict) or any(wanted.get(k) != v for k, v in have.items()):
            return None
        items = [copy.deepcopy(o) for o in inf.items()
                 if all((o["metadata"].get("labels") or {}).get(k) == v for k, v in wanted.items())]
        self.hits += 1
        return ListResult(items, inf.resource_version)

    def list(self, res: Resource, namespace: str | None = None, **kw: Any) -> ListResult:
        found = self._cached(res, namespace, kw)
        return found if found is not None else self.client.list(res, namespace, **kw)

    def list_all(self, res: Resource, namespace: str | None = None, **kw: Any) -> ListResult:
        found = self._cached(res, namespace, kw)
        return found if found is not None else self.client.list_all(res, namespace, **kw)

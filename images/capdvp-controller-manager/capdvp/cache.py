# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reads answered from informer caches, falling through to the API on a miss.

A miss goes live because our DVP informers only see objects with our labels: a same-named foreign object must
still be found (and refused), never mistaken for absent. Kinds the provider may only `get` (no watch: DVP's
classes and images) can be remembered for a few seconds after they were found, so a scale-up of 100 machines
reads its class and image a few times, not 100 times; absence is never remembered. Writes always go to the API.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from dvp_common.kube import KubeClient, ListResult, Resource
from dvp_common.runtime import Informer


class CachedApi:
    def __init__(self, client: KubeClient, informers: dict[Resource, Informer],
                 remember: Mapping[Resource, float] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """`remember`: seconds a found object of that kind answers further gets without the API."""
        self.client, self.informers = client, informers
        self.remember, self.clock = dict(remember or {}), clock
        self._found: dict[tuple[Resource, str | None, str], tuple[float, dict]] = {}
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, res: Resource, name: str, namespace: str | None = None, subresource: str | None = None) -> dict:
        inf = self.informers.get(res)
        if inf is not None and subresource is None and inf.synced.is_set():
            obj = inf.get(f"{namespace}/{name}" if res.namespaced and namespace else name)
            if obj is not None:
                self.hits += 1
                return copy.deepcopy(obj)
        ttl = self.remember.get(res) if subresource is None else None
        if ttl is None:
            return self.client.get(res, name, namespace, subresource)
        key = (res, namespace if res.namespaced else None, name)
        with self._lock:
            until, found = self._found.get(key, (0.0, None))
        if found is not None and self.clock() < until:
            self.hits += 1
            return copy.deepcopy(found)
        obj = self.client.get(res, name, namespace)  # NotFound propagates and is not remembered
        with self._lock:
            self._found[key] = (self.clock() + ttl, copy.deepcopy(obj))
        return obj

    def list(self, res: Resource, namespace: str | None = None, **kw: Any) -> ListResult:
        """From the cache when the informer's selector is part of the one asked for (it then holds every match)."""
        inf = self.informers.get(res)
        wanted = kw.get("label_selector")
        if (inf is not None and inf.synced.is_set() and isinstance(wanted, dict) and set(kw) == {"label_selector"}
                and (inf.namespace is None or inf.namespace == namespace)):
            have = inf.label_selector or {}
            if isinstance(have, dict) and all(wanted.get(k) == v for k, v in have.items()):
                items = [copy.deepcopy(o) for o in inf.items()
                         if all((o["metadata"].get("labels") or {}).get(k) == v for k, v in wanted.items())]
                self.hits += 1
                return ListResult(items, inf.resource_version)
        return self.client.list(res, namespace, **kw)

    def create(self, res: Resource, body: dict, namespace: str | None = None, **kw: Any) -> dict:
        return self.client.create(res, body, namespace, **kw)

    def patch(self, res: Resource, name: str, body: Any, namespace: str | None = None, **kw: Any) -> dict:
        return self.client.patch(res, name, body, namespace, **kw)

    def delete(self, res: Resource, name: str, namespace: str | None = None, **kw: Any) -> dict | None:
        return self.client.delete(res, name, namespace, **kw)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the simulator knows: informer caches of every kind it plays, plus the phase timers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from dvp_common.dvp import resources as R
from dvp_common.kube import Resource

Obj = dict[str, Any]

# Kinds the simulator watches, by kind name.
KINDS: dict[str, Resource] = {r.kind: r for r in (
    R.VIRTUAL_DISK, R.VIRTUAL_MACHINE, R.VMBDA, R.VIRTUAL_DISK_SNAPSHOT, R.VIRTUAL_IMAGE, R.CLUSTER_VIRTUAL_IMAGE,
    R.VIRTUAL_MACHINE_CLASS, R.VIRTUAL_MACHINE_OPERATION, R.VIRTUAL_MACHINE_IP_ADDRESS,
    R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, R.SECRET, R.SERVICE, R.STORAGE_CLASS)}


def meta(obj: Obj | None) -> Obj:
    return (obj or {}).get("metadata") or {}


def spec(obj: Obj | None) -> Obj:
    return (obj or {}).get("spec") or {}


def status(obj: Obj | None) -> Obj:
    return (obj or {}).get("status") or {}


def phase(obj: Obj | None) -> str:
    return str(status(obj).get("phase") or "")


def deleting(obj: Obj | None) -> bool:
    return bool(meta(obj).get("deletionTimestamp"))


def rv(obj: Obj | None) -> int:
    try:
        return int(meta(obj).get("resourceVersion") or 0)
    except ValueError:  # opaque on other servers: treat as unknown (the cache wins)
        return 0


class World:
    """Lookups over the caches. `remember` keeps objects the simulator just wrote, so the next reconcile
    does not act on the older cached copy (the watch event may lag by a few milliseconds)."""

    def __init__(self, caches: dict[str, Callable[[], list[Obj]]],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._caches = caches
        self._written: dict[tuple[str, str, str], Obj] = {}
        self._lock = threading.Lock()
        self.clock = clock
        self._entered: dict[tuple[str, str], float] = {}

    # objects -------------------------------------------------------------------------------------------------
    def remember(self, kind: str, obj: Obj) -> None:
        with self._lock:
            self._written[(kind, meta(obj).get("namespace") or "", meta(obj)["name"])] = obj

    def forget(self, kind: str, namespace: str, name: str) -> None:
        with self._lock:
            self._written.pop((kind, namespace or "", name), None)

    def _fresh(self, kind: str, obj: Obj) -> Obj:
        with self._lock:
            mine = self._written.get((kind, meta(obj).get("namespace") or "", meta(obj).get("name")))
        if mine is not None and meta(mine).get("uid") == meta(obj).get("uid") and rv(mine) > rv(obj):
            return mine
        return obj

    def list(self, kind: str, namespace: str | None = None) -> list[Obj]:
        items = self._caches[kind]()
        if namespace is not None:
            items = [o for o in items if (meta(o).get("namespace") or "") == namespace]
        return [self._fresh(kind, o) for o in items]

    def get(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        for obj in self.list(kind, namespace if KINDS[kind].namespaced else None):
            if meta(obj).get("name") == name:
                return obj
        return None

    def by_uid(self, uid: str) -> Obj | None:
        for kind in self._caches:
            for obj in self._caches[kind]():
                if meta(obj).get("uid") == uid:
                    return obj
        return None

    # phase timers --------------------------------------------------------------------------------------------
    def since(self, obj: Obj, phase_name: str) -> float:
        """Seconds the object has been in `phase_name` as the simulator saw it (first sight starts the clock)."""
        key = (str(meta(obj).get("uid")), phase_name)
        with self._lock:
            started = self._entered.setdefault(key, self.clock())
        return self.clock() - started

    def enter(self, obj: Obj, phase_name: str) -> None:
        with self._lock:
            self._entered[(str(meta(obj).get("uid")), phase_name)] = self.clock()

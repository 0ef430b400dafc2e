# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the simulator knows: informer caches of every kind it plays, plus the phase timers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from dvp_common.dvp import resources as R
from dvp_common.kube import Resource
from dvp_common.kube.resources import ENDPOINT_SLICE

Obj = dict[str, Any]

# Kinds the simulator watches, by kind name.
KINDS: dict[str, Resource] = {r.kind: r for r in (
    R.VIRTUAL_DISK, R.VIRTUAL_MACHINE, R.VMBDA, R.VIRTUAL_DISK_SNAPSHOT, R.VIRTUAL_IMAGE, R.CLUSTER_VIRTUAL_IMAGE,
    R.VIRTUAL_MACHINE_CLASS, R.VIRTUAL_MACHINE_OPERATION, R.VIRTUAL_MACHINE_IP_ADDRESS,
    R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, R.SECRET, R.SERVICE, R.STORAGE_CLASS, R.RESOURCE_QUOTA,
    R.SERVICE_WITH_HEALTHCHECKS, ENDPOINT_SLICE)}


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


def _newer(mine: Obj | None, cached: Obj) -> Obj:
    """What the simulator wrote itself when that is newer than the cached copy of the same object."""
    if mine is not None and meta(mine).get("uid") == meta(cached).get("uid") and rv(mine) > rv(cached):
        return mine
    return cached


class World:
    """Lookups over the caches. `remember` keeps objects the simulator just wrote, so the next reconcile
    does not act on the older cached copy (the watch event may lag by a few milliseconds)."""

    def __init__(self, caches: dict[str, Callable[[], list[Obj]]],
                 clock: Callable[[], float] = time.monotonic,
                 lookups: dict[str, Callable[[str], Obj | None]] | None = None,
                 indexed: dict[str, Callable[[str, str], list[Obj]]] | None = None) -> None:
        self._caches = caches
        # Cache reads by informer key ("ns/name" or "name"): a get is a dict lookup, not a scan of the kind.
        self._lookups = lookups or {}
        # Informer indexes by name (indexes.py): by() is a dict lookup, not a scan of the kind.
        self._indexed = indexed or {}
        self._written: dict[tuple[str, str, str], Obj] = {}
        self._lock = threading.Lock()
        self.clock = clock
        self._entered: dict[tuple[str, str], float] = {}
        self._lost_pvcs: set[tuple[str, str]] = set()  # (namespace, name): storage gone under a disk
        self._cursors: dict[str, int] = {}  # pool -> where its next allocation starts looking

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
        return _newer(mine, obj)

    def list(self, kind: str, namespace: str | None = None) -> list[Obj]:
        items = self._caches[kind]()
        if namespace is not None:
            items = [o for o in items if (meta(o).get("namespace") or "") == namespace]
        with self._lock:  # once per list, not per item: lists run on every reconcile
            written = [self._written.get((kind, meta(o).get("namespace") or "", meta(o).get("name"))) for o in items]
        return [_newer(mine, o) for mine, o in zip(written, items, strict=True)]

    def by(self, kind: str, index: Callable[[Obj], Iterable[str]], value: str) -> list[Obj]:
        """Objects of `kind` that `index` (an indexes.py function) files under `value`. The index reads the
        cache; callers re-check what they need on the fresher copies returned."""
        lookup = self._indexed.get(kind)
        items = lookup(index.__name__, value) if lookup is not None else \
            [o for o in self._caches[kind]() if value in index(o)]
        with self._lock:
            written = [self._written.get((kind, meta(o).get("namespace") or "", meta(o).get("name"))) for o in items]
        return [_newer(mine, o) for mine, o in zip(written, items, strict=True)]

    def get(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        namespaced = KINDS[kind].namespaced
        lookup = self._lookups.get(kind)
        if lookup is not None and (namespace or not namespaced):
            obj = lookup(f"{namespace}/{name}" if namespaced else name)
            return None if obj is None else self._fresh(kind, obj)
        for obj in self.list(kind, namespace if namespaced else None):
            if meta(obj).get("name") == name:
                return obj
        return None

    # storage events ------------------------------------------------------------------------------------------
    def lose_pvc(self, namespace: str, name: str) -> None:
        with self._lock:
            self._lost_pvcs.add((namespace or "", name))

    def pvc_lost(self, namespace: str | None, name: str) -> bool:
        with self._lock:
            return (namespace or "", name) in self._lost_pvcs

    # pools ---------------------------------------------------------------------------------------------------
    def next_free(self, pool_name: str, hosts: Sequence[str], taken: Callable[[str], bool]) -> str | None:
        """The next address of `hosts` not `taken`, going round from where the last allocation of the pool stopped
        (as an IPAM does): scanning from the first address every time made n allocations cost O(n^2) lookups.
        Callers allocating from one pool run one at a time (the simulator's serial kinds)."""
        start = self._cursors.get(pool_name, 0)
        for k in range(len(hosts)):
            i = (start + k) % len(hosts)
            if not taken(hosts[i]):
                self._cursors[pool_name] = i + 1
                return hosts[i]
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

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""An informer: a LIST+WATCH cache of one resource, with event handlers.

Lists once, then watches from the list's resourceVersion, resuming from the last version seen when the
stream ends or breaks and re-listing (with a diff against the cache, so handlers see what changed) on
410 Gone. Every `resync_period` it replays the cache as updates, so controllers reconcile periodically.
Indexes (`add_index`, as client-go's Indexers) answer "which objects refer to X" from a dict kept with the
cache, so a controller reacting to one event never scans the whole cache.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..kube.client import KubeClient, Watch
from ..kube.errors import Gone, KubeError, Transient
from ..kube.resources import Resource
from ..kube.types import BOOKMARK, DELETED, meta

log = logging.getLogger(__name__)
Obj = dict[str, Any]
Handler = Callable[..., None]
IndexFn = Callable[[Obj], Iterable[str]]  # the values an object is found under (pure, quick)


def key_of(obj: Obj) -> str:
    md = meta(obj)
    return f"{md['namespace']}/{md['name']}" if md.get("namespace") else str(md.get("name"))


def _older(old: Obj, new: Obj) -> bool:
    """Whether `old` precedes `new` (etcd's resourceVersions are integers; anything else counts as newer)."""
    try:
        return int(meta(old).get("resourceVersion") or 0) < int(meta(new).get("resourceVersion") or 0)
    except ValueError:
        return True


class Informer:
    def __init__(self, client: KubeClient, resource: Resource, namespace: str | None = None, *,
                 label_selector: str | dict[str, str] | None = None, field_selector: str | None = None,
                 resync_period: float = 0.0, watch_timeout: int = 300,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client, self.resource, self.namespace = client, resource, namespace
        self.label_selector, self.field_selector = label_selector, field_selector
        self.resync_period, self.watch_timeout, self.clock = resync_period, watch_timeout, clock
        self._cache: dict[str, Obj] = {}
        self._lock = threading.RLock()
        self._handlers: list[tuple[Handler | None, Handler | None, Handler | None]] = []
        self._index_fns: dict[str, IndexFn] = {}
        self._indexes: dict[str, dict[str, set[str]]] = {}  # index -> value -> cache keys
        self.resource_version = ""
        self.synced = threading.Event()
        self._need_list = True
        self._next_resync = 0.0
        self._failures = 0
        self.lists = 0  # how many LISTs were needed (tests and benchmarks read this)
        self.handler_errors = 0
        self.last_error = ""
        self.last_handled: tuple[str, str] = ("", "")  # key and resourceVersion of the last object handlers saw
        self._watch: Watch | None = None

    def add_handlers(self, on_add: Handler | None = None, on_update: Handler | None = None,
                     on_delete: Handler | None = None) -> None:
        """on_add(obj), on_update(old, new), on_delete(obj). Handlers must be quick: enqueue keys, no I/O."""
        self._handlers.append((on_add, on_update, on_delete))

    def add_index(self, name: str, fn: IndexFn) -> None:
        """Keep the cache indexed by `fn(obj)` (e.g. the names an object refers to); see `by_index`."""
        with self._lock:
            self._index_fns[name] = fn
            self._indexes[name] = {}
            for key, obj in self._cache.items():
                self._index(name, key, obj, add=True)

    def by_index(self, name: str, value: str) -> list[Obj]:
        """The cached objects `fn` of index `name` puts under `value`, in key order."""
        with self._lock:
            keys = self._indexes[name].get(value, ())
            return [self._cache[k] for k in sorted(keys)]

    def count(self, name: str, value: str) -> int:
        """How many cached objects index `name` puts under `value` (no copy of them)."""
        with self._lock:
            return len(self._indexes[name].get(value, ()))

    def _index(self, name: str, key: str, obj: Obj, add: bool) -> None:
        index = self._indexes[name]
        for value in set(self._index_fns[name](obj)):
            if add:
                index.setdefault(value, set()).add(key)
            elif value in index:
                index[value].discard(key)
                if not index[value]:
                    del index[value]

    def _reindex(self, key: str, old: Obj | None, new: Obj | None) -> None:
        for name in self._index_fns:
            if old is not None:
                self._index(name, key, old, add=False)
            if new is not None:
                self._index(name, key, new, add=True)

    def get(self, key: str) -> Obj | None:
        with self._lock:
            return self._cache.get(key)

    def items(self) -> list[Obj]:
        with self._lock:
            return list(self._cache.values())

    def keys(self) -> list[str]:
        with self._lock:
            return sorted(self._cache)

    def _emit(self, index: int, *args: Obj) -> None:
        for handlers in self._handlers:
            if handlers[index] is not None:
                try:
                    handlers[index](*args)
                except Exception:  # a broken handler must not stop the cache for every other one
                    self.handler_errors += 1
                    log.exception("%s handler failed for %s", self.resource.kind, key_of(args[-1]))
        self.last_handled = (key_of(args[-1]), meta(args[-1]).get("resourceVersion", ""))

    def _relist(self) -> None:
        page = self.client.list_all(self.resource, self.namespace, label_selector=self.label_selector,
                                    field_selector=self.field_selector)
        self.lists += 1
        fresh = {key_of(o): o for o in page.items}
        with self._lock:
            old, self._cache = self._cache, fresh
            for name in self._index_fns:
                self._indexes[name] = {}
                for key, obj in fresh.items():
                    self._index(name, key, obj, add=True)
        for key, obj in fresh.items():
            if key not in old:
                self._emit(0, obj)
            elif meta(old[key]).get("resourceVersion") != meta(obj).get("resourceVersion"):
                self._emit(1, old[key], obj)
        for key, obj in old.items():
            if key not in fresh:
                self._emit(2, obj)
        self.resource_version, self._need_list = page.resource_version, False
        self._next_resync = self.clock() + self.resync_period
        self.synced.set()

    def _apply(self, kind: str, obj: Obj) -> None:
        key = key_of(obj)
        with self._lock:
            old = self._cache.get(key)
            if kind == DELETED:
                self._cache.pop(key, None)
            else:
                self._cache[key] = obj
            self._reindex(key, old, None if kind == DELETED else obj)
        if kind == DELETED:
            self._emit(2, obj)
        elif old is None:
            self._emit(0, obj)
        else:
            self._emit(1, old, obj)

    def assume(self, obj: Obj) -> None:
        """Cache an object this process has just written, until the watch brings it (client-go's mutation cache):
        a reconcile that runs before the event sees the write instead of doing it again. Never replaces a newer
        version; handlers run when the watch event comes."""
        key = key_of(obj)
        with self._lock:
            old = self._cache.get(key)
            if old is not None and not _older(old, obj):
                return
            self._cache[key] = obj
            self._reindex(key, old, obj)

    def resync(self) -> None:
        for obj in self.items():
            self._emit(1, obj, obj)
        self._next_resync = self.clock() + self.resync_period

    def step(self, stop: threading.Event | None = None) -> None:
        """One round: a (re-)list if needed, then one watch session. Errors raise after updating state."""
        if self._need_list:
            self._relist()
        timeout = self.watch_timeout
        if self.resync_period:
            timeout = max(1, min(timeout, int(self._next_resync - self.clock()) + 1))
        watch = self.client.watch(self.resource, self.namespace, label_selector=self.label_selector,
                                  field_selector=self.field_selector, resource_version=self.resource_version,
                                  timeout_seconds=timeout)
        self._watch = watch
        if stop is not None and stop.is_set():
            watch.close()
        try:
            for event in watch:
                self.resource_version = event.resource_version or self.resource_version
                if event.type != BOOKMARK:
                    self._apply(event.type, event.object)
                if stop is not None and stop.is_set():
                    break
        except Gone:
            self._need_list = True
            raise
        finally:
            self._watch = None
            if self.resync_period and self.clock() >= self._next_resync:
                self.resync()

    def run(self, stop: threading.Event, sleep: Callable[[float], None] | None = None) -> None:
        """Keep the cache current until `stop` is set; failures back off with the client's retry policy."""
        sleep = sleep or (lambda s: stop.wait(s))

        def close_on_stop() -> None:  # a quiet watch would otherwise hold run() until its timeout
            stop.wait()
            watch = self._watch
            if watch is not None:
                watch.close()

        threading.Thread(target=close_on_stop, name=f"informer-stop-{self.resource.plural}", daemon=True).start()
        while not stop.is_set():
            try:
                self.step(stop)
                self._failures = 0
            except Gone:
                continue
            except KubeError as exc:  # transient, or e.g. 403/404 until RBAC or the CRD appears: keep trying
                self.last_error = str(exc)
                if not isinstance(exc, Transient):
                    log.warning("%s informer: %s", self.resource.kind, exc)
                sleep(self.client.retry.delay(self._failures))
                self._failures += 1

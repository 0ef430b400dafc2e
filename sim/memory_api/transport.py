# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A dvp_common Transport answered in process: the real KubeClient (retries, waits, error mapping) on top, the
store below instead of HTTP and kube-apiserver. Error answers are metav1.Status bodies mapped by the same
`error_for` the HTTP transport uses; faults are injected where the HTTP transport injects them."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jsonpatch
import jsonpointer
import yaml
from dvp_common.admission.review import Request
from dvp_common.kube.errors import ApiError, Transient, error_for
from dvp_common.kube.faults import Fault, FaultHook, RequestInfo
from dvp_common.kube.metrics import RequestMetrics
from dvp_common.kube.transport import Reply

from sim.memory_api.kube_match import merge_patch

from .store import NO_STATUS, ApiAnswer, Obj, Store, check_update, copy, meta

Admit = Callable[[Request], tuple[str | None, tuple[str, ...]]]  # -> (denial message or None, warnings)
MERGE, JSON_PATCH, APPLY = ("application/merge-patch+json", "application/json-patch+json",
                             "application/apply-patch+yaml")
ATTEMPTS = 50  # a write re-read and re-admitted while other writers move the object (GuaranteedUpdate's loop)


@dataclass(frozen=True)
class Target:
    kind: str  # "<plural>.<group>" (core: "<plural>")
    namespace: str
    name: str | None
    subresource: str | None


def target(path: str) -> Target:
    parts = path.strip("/").split("/")
    group, rest = ("", parts[2:]) if parts[0] == "api" else (parts[1], parts[3:])
    namespace = ""
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    plural = rest[0]
    return Target(f"{plural}.{group}" if group else plural, namespace, rest[1] if len(rest) > 1 else None,
                  rest[2] if len(rest) > 2 else None)


@dataclass
class Credentials:
    namespace: str | None = None  # KubeClient reads the default namespace from its transport's credentials


class _Stale(Exception):  # noqa: N818 - internal: the object moved between the admission and the write
    pass


class MemoryTransport:
    def __init__(self, store: Store, admit: Admit | None, *, faults: FaultHook | None = None,
                 metrics: RequestMetrics | None = None, latency: float = 0.0,
                 namespaces: Callable[[str], bool] | None = None) -> None:
        self.store, self.admit, self.faults, self.latency = store, admit, faults, latency
        self.metrics = metrics if metrics is not None else RequestMetrics()
        self.credentials = Credentials()
        self.namespace_exists = namespaces or (lambda _ns: True)

    def close(self) -> None:
        pass

    def _error(self, info: RequestInfo, status: int, reason: str, message: str,
               retry_after: float | None = None) -> ApiError:
        return error_for(status, {"kind": "Status", "reason": reason, "message": message}, kind=info.kind,
                         name=info.name, namespace=info.namespace, verb=info.verb, retry_after=retry_after)

    def _fault(self, info: RequestInfo, fault: Fault) -> ApiError:
        if fault.connection_error:
            return Transient(f"connection error ({fault.message})", reason="ConnectionError", kind=info.kind,
                             name=info.name, namespace=info.namespace, verb=info.verb)
        return self._error(info, fault.status or 500, fault.reason, fault.message, fault.retry_after)

    def _exchange(self, info: RequestInfo, answer: Callable[[], Any]) -> tuple[Any, Fault | None]:
        fault = self.faults(info) if self.faults else None
        started = time.monotonic()
        if self.latency:
            time.sleep(self.latency)  # the round trip the HTTP transport would spend
        if fault and not fault.after and (fault.status or fault.connection_error):
            self.metrics.observe(info.verb, info.resource, fault.status or 0, time.monotonic() - started)
            raise self._fault(info, fault)
        try:
            result = answer()
        except ApiAnswer as exc:
            self.metrics.observe(info.verb, info.resource, exc.status, time.monotonic() - started)
            raise self._error(info, exc.status, exc.reason, exc.message) from None
        self.metrics.observe(info.verb, info.resource, 200, time.monotonic() - started)
        if fault and fault.after and (fault.status or fault.connection_error):
            raise self._fault(info, fault)  # the write happened; the answer is lost
        return result, fault

    def request(self, info: RequestInfo, method: str, params: dict[str, Any] | None = None, body: Any = None,
                content_type: str | None = None, deadline: float | None = None) -> Reply:
        t = target(info.path)
        params = params or {}
        result, _ = self._exchange(info, lambda: self.answer(t, method, params, body, content_type))
        return Reply(201 if method == "POST" else 200, result, {})

    # verbs ---------------------------------------------------------------------------------------------------
    def answer(self, t: Target, method: str, params: dict[str, Any], body: Any, content_type: str | None) -> Obj:
        """One request's answer (the HTTP front serves the same): the object, a List or a Status; ApiAnswer for
        an error answer."""
        what = t.kind
        if t.subresource is not None and (t.subresource != "status" or t.kind in NO_STATUS):
            raise ApiAnswer(404, "NotFound", "the server could not find the requested resource")
        if method == "GET" and t.name is None:
            return self._list(t, params)
        if method == "GET":
            return self.store.get(t.kind, t.namespace, t.name, what)  # a /status GET reads the same document
        if method == "POST":
            return self._create(t, body)
        if method == "DELETE":
            return self.store.delete(t.kind, t.namespace, t.name, body or {}, what)
        if method == "PATCH" and content_type == APPLY:
            return self._apply(t, body)
        if method == "PATCH" and content_type not in (MERGE, JSON_PATCH):
            raise ApiAnswer(415, "UnsupportedMediaType", f"the in-memory API serves merge, JSON and apply patches, "
                                                         f"not {content_type}")
        if method in ("PUT", "PATCH"):
            return self._update(t, method, body, content_type)
        raise ApiAnswer(405, "MethodNotAllowed", f"{method} {what}")

    def _list(self, t: Target, params: dict[str, Any]) -> Obj:
        """A List; with `limit`, one page and a `continue` token (the list's resourceVersion and the last key
        sent). A continued list reads the current objects after that key, where etcd would serve the snapshot
        of the first page: the tests that page do not write between pages."""
        items, rv = self.store.list(t.kind, t.namespace or None, params.get("labelSelector"),
                                    params.get("fieldSelector"))
        token = params.get("continue")
        if token:
            try:
                state = json.loads(base64.urlsafe_b64decode(str(token)))
                rv, after = int(state["rv"]), tuple(state["start"])
            except (ValueError, KeyError, TypeError):
                raise ApiAnswer(400, "BadRequest", "continue key is not valid") from None
            items = [o for o in items if (meta(o).get("namespace", ""), meta(o)["name"]) > after]
        md: Obj = {"resourceVersion": str(rv)}
        limit = int(params.get("limit") or 0)
        if limit and len(items) > limit:
            items = items[:limit]
            last = meta(items[-1])
            md["continue"] = base64.urlsafe_b64encode(json.dumps(
                {"rv": rv, "start": [last.get("namespace", ""), last["name"]]}).encode()).decode()
        return {"kind": "List", "metadata": md, "items": items}

    def _create(self, t: Target, body: Obj) -> Obj:
        if t.namespace and not self.namespace_exists(t.namespace):
            raise ApiAnswer(404, "NotFound", f'namespaces "{t.namespace}" not found')
        body = self.store.defaults(t.kind, copy(body))  # defaulting comes before admission
        if t.namespace:
            body.setdefault("metadata", {})["namespace"] = t.namespace
        self._admit("CREATE", t, body, None)
        return self.store.create(t.kind, t.namespace, body, t.kind)

    def _apply(self, t: Target, body: Any) -> Obj:
        """Server-side apply without field ownership: the applied configuration creates the object or is merged
        into it (no managedFields, no conflicts between managers, fields left out of it are kept)."""
        applied = yaml.safe_load(body) if isinstance(body, str | bytes) else body
        try:
            self.store.get(t.kind, t.namespace, t.name or "", t.kind)
        except ApiAnswer as exc:
            if exc.status != 404 or t.subresource:
                raise
            return self._create(t, applied)
        return self._update(t, "PATCH", applied, MERGE)

    def _update(self, t: Target, method: str, body: Any, content_type: str | None) -> Obj:
        status_only = t.subresource == "status"
        for _ in range(ATTEMPTS):
            current = self.store.get(t.kind, t.namespace, t.name, t.kind)
            if method == "PATCH" and content_type == JSON_PATCH:
                try:
                    new = jsonpatch.apply_patch(current, body)
                except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
                    raise ApiAnswer(422, "Invalid", f'{t.kind} "{t.name}" is invalid: {exc}') from None
            elif method == "PATCH":
                new = merge_patch(current, body)
                if not meta(body).get("resourceVersion"):
                    new["metadata"]["resourceVersion"] = meta(current)["resourceVersion"]
            else:
                new = copy(body)
            check_update(current, new, t.kind, t.name or "")
            if not status_only:
                new = self.store.defaults(t.kind, new)
                self._admit("UPDATE", t, new, current)

            def change(now: Obj, new: Obj = new, seen: str = meta(current)["resourceVersion"]) -> Obj:
                if meta(now)["resourceVersion"] != seen:
                    raise _Stale
                return new

            try:
                return self.store.update(t.kind, t.namespace, t.name, change, t.kind, status_only)
            except _Stale:
                continue
        raise ApiAnswer(500, "InternalError", f'{t.kind} "{t.name}": kept changing under {ATTEMPTS} attempts')

    def _admit(self, operation: str, t: Target, obj: Obj, old: Obj | None) -> None:
        if self.admit is None:
            return
        plural, _, group = t.kind.partition(".")
        req = Request(uid="", operation=operation, kind=str(obj.get("kind") or ""), group=group,
                      name=str(meta(obj).get("name") or t.name or ""), namespace=t.namespace, obj=obj, old=old)
        denial, _warnings = self.admit(req)
        if denial is not None:
            raise ApiAnswer(403, "Forbidden", denial)

    # watches -------------------------------------------------------------------------------------------------
    def stream(self, info: RequestInfo, params: dict[str, Any], read_timeout: float,
               deadline: float | None = None) -> MemoryStream:
        t = target(info.path)
        labels, fields = params.get("labelSelector"), params.get("fieldSelector")
        ns = t.namespace or None
        since = str(params.get("resourceVersion") or "")
        until = time.monotonic() + float(params.get("timeoutSeconds") or 300)

        def open_() -> tuple[list[Obj], int]:
            if since in ("", "0"):
                return self.store.start_events(t.kind, ns, labels, fields)
            return [], int(since)

        (first, rv), fault = self._exchange(info, open_)
        stream = MemoryStream(fault.drop_watch_after if fault else None, info)
        stream.events = stream.limited(
            _chain(first, self.store.watch(t.kind, ns, labels, fields, rv, until, stream.stopped, time.monotonic)))
        return stream


def _chain(first: list[Obj], rest: Iterator[Obj]) -> Iterator[Obj]:
    yield from first
    yield from rest


class MemoryStream:
    """An open watch; `close()` from any thread ends the iteration (the waiting reader wakes within 0.5 s)."""

    def __init__(self, drop_after: int | None, info: RequestInfo) -> None:
        self.stopped = threading.Event()
        self.drop_after, self.info = drop_after, info
        self.events: Iterator[Obj] = iter(())

    @property
    def closed(self) -> bool:
        return self.stopped.is_set()

    def limited(self, events: Iterator[Obj]) -> Iterator[Obj]:
        if self.drop_after == 0:
            raise Transient("watch dropped (injected)", reason="WatchDropped", kind=self.info.kind, verb="watch")
        for sent, event in enumerate(events, 1):
            yield event
            if self.drop_after is not None and sent >= self.drop_after:
                raise Transient("watch dropped (injected)", reason="WatchDropped", kind=self.info.kind,
                                verb="watch")

    def __iter__(self) -> MemoryStream:
        return self

    def __next__(self) -> Obj:
        if self.closed:
            raise StopIteration
        return next(self.events)

    def close(self) -> None:
        self.stopped.set()

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""KubeClient: typed verbs over the REST API, with retries only where a repeat is safe."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Any

from . import config as cfg
from .errors import AlreadyExists, ApiError, Gone, NotFound, Transient, error_for
from .faults import FaultHook, RequestInfo
from .metrics import RequestMetrics
from .resources import Resource
from .retry import RetryPolicy
from .transport import DEFAULT_DEADLINE, EventStream, Transport
from .types import BOOKMARK, ERROR, ListResult, WatchEvent, meta, selector

PATCH_TYPES = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",  # JSON is YAML
}
DEFAULT_FIELD_MANAGER = "dvp-common"
WATCH_TIMEOUT = 300  # seconds: the server ends a watch after this; callers resume from the last resourceVersion


class Watch:
    """The events of one watch (an iterator of WatchEvent); `close()` from another thread ends it."""

    def __init__(self, stream: EventStream, events: Iterator[WatchEvent]) -> None:
        self._stream, self._events = stream, events

    def __iter__(self) -> Watch:
        return self

    def __next__(self) -> WatchEvent:
        return next(self._events)

    def close(self) -> None:
        self._stream.close()


class KubeClient:
    def __init__(self, transport: Transport, *, retry: RetryPolicy | None = None,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                 field_manager: str = DEFAULT_FIELD_MANAGER, deadline: float = DEFAULT_DEADLINE) -> None:
        self.transport = transport
        self.retry = retry or RetryPolicy()
        self.sleep = sleep
        self.clock = clock
        self.field_manager = field_manager
        # Seconds one call may take in all, retries and their backoff included; each verb's `deadline=`
        # overrides it for that call. Each exchange is cut where the budget ends (transport.request).
        self.deadline = deadline
        self.namespace = transport.credentials.namespace  # from the kubeconfig context / ServiceAccount, if any

    # construction -----------------------------------------------------------------------------------------
    @classmethod
    def from_credentials(cls, creds: cfg.Credentials, *, faults: FaultHook | None = None,
                         metrics: RequestMetrics | None = None, **kwargs: Any) -> KubeClient:
        return cls(Transport(creds, faults=faults, metrics=metrics), **kwargs)

    @classmethod
    def from_kubeconfig(cls, text: str | bytes, context: str | None = None, **kwargs: Any) -> KubeClient:
        """`text`: the kubeconfig's YAML (decode DVP_KUBERNETES_CONFIG_BASE64 with kubeconfig.decode_base64)."""
        return cls.from_credentials(cfg.from_kubeconfig(text, context), **kwargs)

    @classmethod
    def from_service_account(cls, directory: str = str(cfg.SERVICE_ACCOUNT_DIR), **kwargs: Any) -> KubeClient:
        return cls.from_credentials(cfg.from_service_account(directory), **kwargs)

    @classmethod
    def from_file_or_service_account(cls, kubeconfig_path: str = "", **kwargs: Any) -> KubeClient:
        return cls.from_credentials(cfg.from_file_or_service_account(kubeconfig_path), **kwargs)

    @classmethod
    def from_url(cls, host: str, token: str | None = None, ca_data: str | bytes | None = None,
                 client_cert: str | bytes | None = None, client_key: str | bytes | None = None,
                 insecure: bool = False, **kwargs: Any) -> KubeClient:
        return cls.from_credentials(cfg.from_url(host, token, ca_data, client_cert, client_key, insecure), **kwargs)

    @property
    def metrics(self) -> RequestMetrics:
        return self.transport.metrics

    def close(self) -> None:
        self.transport.close()

    # plumbing ---------------------------------------------------------------------------------------------
    def _info(self, verb: str, method: str, res: Resource, namespace: str | None, name: str | None = None,
              subresource: str | None = None, collection: bool = False) -> RequestInfo:
        if res.namespaced and not namespace and not collection:
            raise ValueError(f"{res.kind} {name or ''}: namespace is required".replace("  ", " "))
        ns = namespace if res.namespaced else None
        label = f"{res}/{subresource}" if subresource else str(res)
        return RequestInfo(verb=verb, method=method, resource=label, namespace=ns or "", name=name or "",
                           path=res.path(ns, name, subresource), kind=res.kind)

    def _until(self, deadline: float | None) -> float:
        return self.clock() + (self.deadline if deadline is None else deadline)

    def _call(self, info: RequestInfo, method: str, *, until: float, params: dict[str, Any] | None = None,
              body: Any = None, content_type: str | None = None, retry: bool = True,
              on_retry_error: Callable[[ApiError], Any] | None = None) -> dict[str, Any]:
        attempt = 0
        while True:
            try:
                return self.transport.request(info, method, params, body, content_type,
                                              deadline=until - self.clock()).body
            except Transient as exc:
                if not retry or attempt + 1 >= self.retry.attempts:
                    raise
                pause = self.retry.delay(attempt, exc.retry_after)
                if self.clock() + pause >= until:
                    raise  # no time left for another attempt: the last error says why
                self.sleep(pause)
                attempt += 1
            except ApiError as exc:
                # A retried write whose first answer was lost may see its own effect: let the verb decide.
                if attempt and on_retry_error is not None:
                    return on_retry_error(exc)
                raise

    @staticmethod
    def _typed(res: Resource, obj: dict[str, Any]) -> dict[str, Any]:
        obj.setdefault("apiVersion", res.api_version)
        obj.setdefault("kind", res.kind)
        return obj

    # discovery --------------------------------------------------------------------------------------------
    def served(self, res: Resource, *, deadline: float | None = None) -> bool:
        """API discovery: whether the server serves `res` now (GET /apis/<group>/<version>; 404 = not served).
        Discovery is granted to every authenticated user (system:discovery), so it needs no Role; the verb is
        recorded as `discover` for fault hooks and metrics."""
        path = f"/apis/{res.group}/{res.version}" if res.group else f"/api/{res.version}"
        info = RequestInfo(verb="discover", method="GET", resource=res.api_version, namespace="", name="",
                           path=path, kind="APIResourceList")
        try:
            body = self._call(info, "GET", until=self._until(deadline))
        except NotFound:
            return False
        return any(isinstance(r, dict) and r.get("name") == res.plural for r in body.get("resources") or [])

    # verbs ------------------------------------------------------------------------------------------------
    def get(self, res: Resource, name: str, namespace: str | None = None, subresource: str | None = None, *,
            deadline: float | None = None) -> dict:
        return self._call(self._info("get", "GET", res, namespace, name, subresource), "GET",
                          until=self._until(deadline))

    def list(self, res: Resource, namespace: str | None = None, *, label_selector: str | dict | None = None,
             field_selector: str | dict | None = None, limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None, deadline: float | None = None) -> ListResult:
        return self._list(res, namespace, self._until(deadline), label_selector=label_selector,
                          field_selector=field_selector, limit=limit, continue_=continue_,
                          resource_version=resource_version)

    def _list(self, res: Resource, namespace: str | None, until: float, *, label_selector: str | dict | None,
              field_selector: str | dict | None, limit: int | None, continue_: str | None,
              resource_version: str | None) -> ListResult:
        params = {k: v for k, v in (("labelSelector", selector(label_selector)),
                                    ("fieldSelector", selector(field_selector)), ("limit", limit),
                                    ("continue", continue_), ("resourceVersion", resource_version)) if v}
        info = self._info("list", "GET", res, namespace, collection=True)
        body = self._call(info, "GET", until=until, params=params)
        md, items = body.get("metadata"), body.get("items") or []
        md = md if isinstance(md, dict) else {}
        if not isinstance(items, list):
            raise Transient("answer's items is not a list", kind=info.kind, namespace=info.namespace, verb="list")
        # An item that is not an object is passed on untouched: the caller judges each item alone.
        return ListResult([self._typed(res, i) if isinstance(i, dict) else i for i in items],
                          str(md.get("resourceVersion") or ""), str(md.get("continue") or "") or None)

    def list_all(self, res: Resource, namespace: str | None = None, *, page_size: int = 500,
                 deadline: float | None = None, label_selector: str | dict | None = None,
                 field_selector: str | dict | None = None) -> ListResult:
        """Every page of a list; restarts once if the continue token expires (410). `deadline` covers all pages."""
        until = self._until(deadline)
        for restart in (False, True):
            items: list[dict[str, Any]] = []
            first_rv, token = "", None
            try:
                while True:
                    page = self._list(res, namespace, until, label_selector=label_selector,
                                      field_selector=field_selector, limit=page_size, continue_=token,
                                      resource_version=None)
                    items += page.items
                    first_rv = first_rv or page.resource_version
                    if not page.continue_:
                        return ListResult(items, first_rv)
                    token = page.continue_
            except Gone:
                if restart:
                    raise
        raise AssertionError("unreachable")

    def create(self, res: Resource, body: dict[str, Any], namespace: str | None = None, *,
               get_existing: bool = False, field_manager: str | None = None,
               deadline: float | None = None) -> dict[str, Any]:
        """POST. With get_existing=True, AlreadyExists answers the existing object and transient errors are
        retried (a lost answer then shows up as AlreadyExists): the caller vouches the name is idempotent."""
        namespace = namespace or meta(body).get("namespace")
        name = meta(body).get("name") or meta(body).get("generateName", "")
        info = self._info("create", "POST", res, namespace, None)
        info = dataclasses.replace(info, name=name)
        params = {"fieldManager": field_manager or self.field_manager}
        body = self._typed(res, dict(body))
        until = self._until(deadline)
        try:
            return self._call(info, "POST", until=until, params=params, body=body, retry=get_existing)
        except AlreadyExists:
            if not get_existing:
                raise
            return self.get(res, name, namespace, deadline=until - self.clock())

    def replace(self, res: Resource, body: dict[str, Any], namespace: str | None = None, *,
                subresource: str | None = None, field_manager: str | None = None,
                deadline: float | None = None) -> dict[str, Any]:
        """PUT the whole object; a stale metadata.resourceVersion raises Conflict."""
        namespace = namespace or meta(body).get("namespace")
        name = meta(body).get("name")
        if not name:
            raise ValueError(f"{res.kind}: metadata.name is required to replace")
        info = self._info("update", "PUT", res, namespace, name, subresource)
        return self._call(info, "PUT", until=self._until(deadline),
                          params={"fieldManager": field_manager or self.field_manager},
                          body=self._typed(res, dict(body)))

    def update_status(self, res: Resource, body: dict[str, Any], namespace: str | None = None, *,
                      deadline: float | None = None) -> dict[str, Any]:
        return self.replace(res, body, namespace, subresource="status", deadline=deadline)

    def patch(self, res: Resource, name: str, body: Any, namespace: str | None = None, *,
              patch_type: str = "merge", subresource: str | None = None, field_manager: str | None = None,
              force: bool = False, deadline: float | None = None) -> dict[str, Any]:
        if patch_type not in PATCH_TYPES:
            raise ValueError(f"{res.kind} {name}: unknown patch_type {patch_type!r}")
        params: dict[str, Any] = {"fieldManager": field_manager or self.field_manager}
        if patch_type == "apply" and force:
            params["force"] = "true"
        # merge/strategic/apply patches set fields, so repeating one is harmless; a JSON patch may append,
        # so it is only repeated when it starts with a `test` precondition.
        safe = patch_type != "json" or bool(body) and body[0].get("op") == "test"
        info = self._info("patch", "PATCH", res, namespace, name, subresource)
        return self._call(info, "PATCH", until=self._until(deadline), params=params, body=body,
                          content_type=PATCH_TYPES[patch_type], retry=safe)

    def delete(self, res: Resource, name: str, namespace: str | None = None, *, propagation: str | None = None,
               preconditions: dict[str, str] | None = None, grace_period_seconds: int | None = None,
               missing_ok: bool = False, deadline: float | None = None) -> dict[str, Any] | None:
        """DELETE; returns the object (finalizers pending) or the Status, None when missing and missing_ok.
        A retry that finds the object gone counts as success: our earlier attempt deleted it."""
        body: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if propagation:
            body["propagationPolicy"] = propagation
        if preconditions:
            body["preconditions"] = preconditions
        if grace_period_seconds is not None:
            body["gracePeriodSeconds"] = grace_period_seconds

        def gone_on_retry(exc: ApiError) -> None:
            if isinstance(exc, NotFound):
                return None
            raise exc

        try:
            return self._call(self._info("delete", "DELETE", res, namespace, name), "DELETE",
                              until=self._until(deadline), body=body, on_retry_error=gone_on_retry)
        except NotFound:
            if missing_ok:
                return None
            raise

    def watch(self, res: Resource, namespace: str | None = None, *, label_selector: str | dict | None = None,
              field_selector: str | dict | None = None, resource_version: str | None = None,
              timeout_seconds: int | None = None, allow_bookmarks: bool = True) -> Watch:
        """Open a watch (the opening is retried) and return its events. The iterator ends when the server
        closes the watch; a broken stream raises Transient, an expired resourceVersion raises Gone."""
        timeout_seconds = WATCH_TIMEOUT if timeout_seconds is None else max(1, int(timeout_seconds))
        params = {k: v for k, v in (("watch", "1"), ("labelSelector", selector(label_selector)),
                                    ("fieldSelector", selector(field_selector)),
                                    ("resourceVersion", resource_version), ("timeoutSeconds", timeout_seconds),
                                    ("allowWatchBookmarks", "true" if allow_bookmarks else None)) if v}
        info = self._info("watch", "GET", res, namespace, collection=True)
        until, attempt = self._until(None), 0  # the opening has the call budget; the events the watch's time
        while True:
            try:
                raw = self.transport.stream(info, params, read_timeout=timeout_seconds + 15,
                                            deadline=until - self.clock())
                break
            except Transient as exc:
                pause = self.retry.delay(attempt, exc.retry_after)
                if attempt + 1 >= self.retry.attempts or self.clock() + pause >= until:
                    raise
                self.sleep(pause)
                attempt += 1
        return Watch(raw, self._decode(res, info, raw))

    def _decode(self, res: Resource, info: RequestInfo, raw: Iterator[dict[str, Any]]) -> Iterator[WatchEvent]:
        for event in raw:
            kind, obj = event.get("type"), event.get("object") or {}
            if kind == ERROR:
                raise error_for(int(obj.get("code") or 500), obj, kind=res.kind, namespace=info.namespace,
                                verb="watch")
            if kind != BOOKMARK:
                self._typed(res, obj)
            yield WatchEvent(str(kind), obj)

    def wait_for(self, res: Resource, name: str, predicate: Callable[[dict[str, Any] | None], Any],
                 timeout: float, namespace: str | None = None, *,
                 describe: Callable[[dict[str, Any] | None], str] | None = None) -> dict[str, Any] | None:
        from .wait import wait_for

        return wait_for(self, res, name, predicate, timeout, namespace, describe=describe)


def get_or_none(api: Any, res: Resource, name: str, namespace: str | None = None) -> dict | None:
    """The object, or None when the API says it does not exist (404); every other error propagates.

    `api` is a KubeClient or anything with its `get(res, name, namespace)` that raises NotFound (a cache reader).
    """
    try:
        return api.get(res, name, namespace)
    except NotFound:
        return None

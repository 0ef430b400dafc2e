# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One in-memory Kubernetes API (sim.memory_api) as a unit test sees it: the real KubeClient on it, every
request that client sends recorded as (verb, kind, name[, subresource]), faults scripted per request, and the
writes of the controllers the test plays (`put`, `set_status`, `remove`) and its reads (`peek`, `items`) beside
the client, neither recorded. Garbage collection by ownerReference runs (at once), as on the harness's APIs.

The client does not retry (NO_RETRY): a call is one request, so a scripted fault fails the call it meets; the
client's retries are tested on their own (tests/dvp_common).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

from dvp_common.kube import NO_RETRY, ApiError, KubeClient, Resource
from dvp_common.kube.faults import Fault, RequestInfo

from sim.memory_api import MemoryApi
from sim.memory_api.kube_match import merge_patch

Call = tuple[str, ...]  # (verb, kind, name) or (verb, kind, name, subresource)
WRITES = frozenset({"create", "update", "patch", "delete"})
READS = frozenset({"get", "list"})


def fault_of(error: ApiError) -> Fault:
    """The answer that makes the client raise `error` again (a status 0 error: a broken connection)."""
    if not error.status:
        return Fault(connection_error=True, message=error.message)
    return Fault(status=error.status, reason=error.reason, message=error.message)


class RecordedApi:
    def __init__(self, *, admission: bool = False, namespaces: tuple[str, ...] = (),
                 clock: Callable[[], dt.datetime] | None = None, latency: float = 0.0) -> None:
        """`latency`: seconds each request of the client takes (a round trip)."""
        self.memory = MemoryApi(admission=admission, clock=clock, collect=True, latency=latency)
        for name in namespaces:
            self.memory.ensure_namespace(name)
        self.calls: list[Call] = []
        self._faults: list[tuple[str, str, str | None, Fault]] = []
        self._lock = threading.Lock()
        self.client: KubeClient = self.memory.client(faults=self._hook, retry=NO_RETRY)

    def _hook(self, req: RequestInfo) -> Fault | None:
        sub = req.resource.partition("/")[2]
        with self._lock:
            self.calls.append((req.verb, req.kind, req.name) + ((sub,) if sub else ()))
            for i, (verb, kind, name, fault) in enumerate(self._faults):
                if verb == req.verb and kind == req.kind and name in (None, req.name):
                    del self._faults[i]
                    return fault
        return None

    # the test's controls ----------------------------------------------------------------------------------
    def fail(self, verb: str, kind: str, error: ApiError, name: str | None = None) -> None:
        """The next request of `verb` on `kind` (named `name`, if given) is answered with `error`, once."""
        with self._lock:
            self._faults.append((verb, kind, name, fault_of(error)))

    def count(self, verb: str) -> int:
        return sum(1 for c in list(self.calls) if c[0] == verb)

    def writes(self) -> list[Call]:
        return [c for c in list(self.calls) if c[0] in WRITES]

    def reads(self) -> int:
        return sum(1 for c in list(self.calls) if c[0] in READS)

    # what other controllers write and the test reads, without a request ------------------------------------
    def put(self, res: Resource, obj: dict[str, Any], namespace: str | None = None) -> dict[str, Any]:
        return self.memory.put(res, obj, namespace)

    def set_status(self, res: Resource, name: str, namespace: str | None, status: dict[str, Any]) -> dict[str, Any]:
        """Merge `status` into the object's status, as its controller would."""
        obj = self.memory.peek(res, name, namespace)
        if obj is None:
            raise KeyError(f"{res.kind} {namespace or ''}/{name} does not exist")
        obj["status"] = merge_patch(obj.get("status") or {}, status)
        return self.memory.put(res, obj, namespace)

    def peek(self, res: Resource, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        return self.memory.peek(res, name, namespace)

    def items(self, res: Resource, namespace: str | None = None) -> list[dict[str, Any]]:
        return self.memory.items(res, namespace)

    def remove(self, res: Resource, name: str, namespace: str | None = None) -> None:
        self.memory.remove(res, name, namespace)

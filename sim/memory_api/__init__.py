# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one in-memory Kubernetes API: DVP's kinds and any other (Nodes, Services, Secrets, Leases, Events, CAPI's
and our CRDs' objects), for the fast tests and the driver-overhead benchmarks.

It stands in for kube-apiserver only: clients are the real dvp_common KubeClient (on MemoryTransport, or over
HTTP through `http.HttpApi` for the client's wire tests), DVP's controllers are still the simulator (sim)
running on it, and DVP's admission rules are the ones the simulator's webhook serves (sim.admission.Reviews).
What it leaves out is schema validation (422) and, unless asked (`collect=True`: background collection, at
once), the controller-manager beside kube-apiserver: no garbage collection by ownerReference (a Foreground or
Orphan delete keeps its finalizer). The contract tests that need neither run on both worlds (tests/dvp_sim,
`world` fixture), so the two cannot drift. Unit tests see it through testkit.recorded.
"""

from __future__ import annotations

import itertools
import secrets
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from dvp_common.admission.review import Request
from dvp_common.kube import KubeClient
from dvp_common.kube.faults import FaultHook
from dvp_common.kube.resources import NAMESPACE, Resource

from .schema import Defaults
from .store import ApiAnswer, Obj, Store
from .transport import MemoryTransport

__all__ = ["MemoryApi"]


class MemoryApi:
    """`client()` and `create_namespace()` as the harness's ApiServer has them; `latency`: seconds per request."""

    name = "memory"

    def __init__(self, *, admission: bool = True, latency: float = 0.0,
                 clock: Callable[[], datetime] | None = None, collect: bool = False) -> None:
        """`clock`: the wall clock of creationTimestamp and deletionTimestamp (a test's fixed clock); `collect`:
        garbage collection by ownerReference, as the harness's DVP API has it (Store._collect)."""
        self.store = Store(default=Defaults(), **({"clock": clock} if clock else {}), collect=collect)
        self.latency = latency
        self._counter = itertools.count(1)
        self._lock = threading.Lock()
        self._reviews = None
        if admission:
            from sim.admission import Reviews

            self._reviews = Reviews(self.client())
        self.store.create(str(NAMESPACE), "", {"metadata": {"name": "default"}}, str(NAMESPACE))

    def _admit(self, req: Request) -> tuple[str | None, tuple[str, ...]]:
        assert self._reviews is not None
        verdict = self._reviews.decide(req)
        if verdict is None or verdict.allowed:
            return None, verdict.warnings if verdict else ()
        hook = self._reviews.webhook[req.kind]
        return f'admission webhook "{hook}" denied the request: {verdict.message}', verdict.warnings

    def _namespace_exists(self, name: str) -> bool:
        return bool(self.store.list(str(NAMESPACE), None, None, f"metadata.name={name}")[0])

    def client(self, token: str | None = None, *, faults: FaultHook | None = None, **kwargs: Any) -> KubeClient:
        transport = MemoryTransport(self.store, self._admit if self._reviews is not None else None, faults=faults,
                                    latency=self.latency, namespaces=self._namespace_exists)
        return KubeClient(transport, **kwargs)  # type: ignore[arg-type]

    # controllers' writes and reads, without a request -----------------------------------------------------
    @staticmethod
    def _where(res: Resource, obj: Obj | None, namespace: str | None) -> str:
        return (namespace or ((obj or {}).get("metadata") or {}).get("namespace") or "") if res.namespaced else ""

    def put(self, res: Resource, obj: Obj, namespace: str | None = None) -> Obj:
        """Create or replace `obj` whole, status included, as the controller that owns it would (test setup;
        DVP's and CAPI's controllers in tests): no admission, no precondition, one watch event."""
        body = {**obj, "apiVersion": obj.get("apiVersion", res.api_version), "kind": obj.get("kind", res.kind)}
        return self.store.put(str(res), self._where(res, obj, namespace), body, str(res))

    def peek(self, res: Resource, name: str, namespace: str | None = None) -> Obj | None:
        """The stored object (a copy), or None."""
        try:
            return self.store.get(str(res), self._where(res, None, namespace), name, str(res))
        except ApiAnswer:
            return None

    def items(self, res: Resource, namespace: str | None = None) -> list[Obj]:
        """Every stored object of a kind (in a namespace), by namespace and name."""
        return self.store.list(str(res), namespace if res.namespaced else None, None, None)[0]

    def remove(self, res: Resource, name: str, namespace: str | None = None) -> None:
        """Delete as the API does (finalizers keep the object, with its deletionTimestamp)."""
        self.store.delete(str(res), self._where(res, None, namespace), name, {}, str(res))

    def ensure_namespace(self, name: str) -> None:
        if not self._namespace_exists(name):
            self.store.create(str(NAMESPACE), "", {"metadata": {"name": name}}, str(NAMESPACE))

    def create_namespace(self, prefix: str = "t") -> str:
        with self._lock:
            name = f"{prefix}-{next(self._counter)}-{secrets.token_hex(2)}"
        client = self.client()
        client.create(NAMESPACE, {"metadata": {"name": name}})
        return name

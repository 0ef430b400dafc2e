# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fault injection at the transport: fail a request with a status, lose its response, or drop a watch.

The transport calls `faults(request)` before each request; a returned `Fault` is applied. Tests and the
DVP simulator use it to play 5xx storms, 409s and watch disconnects against a real API server.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RequestInfo:
    verb: str  # get, list, watch, create, update, patch, delete
    method: str
    resource: str  # plural[.group][/subresource]
    namespace: str
    name: str
    path: str
    kind: str = ""


@dataclass(frozen=True)
class Fault:
    status: int | None = None  # answer with this HTTP status instead of the server's
    message: str = "injected fault"
    reason: str = ""
    retry_after: float | None = None
    after: bool = False  # send the request, then lose the answer (the write happened, the client sees `status`)
    connection_error: bool = False  # as if the connection broke before any answer
    drop_watch_after: int | None = None  # watches only: break the stream after this many events


FaultHook = Callable[[RequestInfo], Fault | None]


@dataclass
class RandomFaults:
    """Fails a fraction of requests with 5xx (and/or drops watches). Deterministic with a seed."""

    rate: float = 0.2
    statuses: tuple[int, ...] = (500, 503)
    verbs: frozenset[str] | None = None  # None: every verb
    watch_drop_rate: float = 0.0
    watch_drop_after: tuple[int, int] = (0, 3)
    seed: int | None = None
    injected: int = 0
    _rand: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._rand = random.Random(self.seed)  # noqa: S311 - not cryptographic

    def __call__(self, req: RequestInfo) -> Fault | None:
        with self._lock:
            if self.verbs is not None and req.verb not in self.verbs:
                return None
            if req.verb == "watch" and self.watch_drop_rate and self._rand.random() < self.watch_drop_rate:
                self.injected += 1
                return Fault(drop_watch_after=self._rand.randint(*self.watch_drop_after))
            if self._rand.random() < self.rate:
                self.injected += 1
                return Fault(status=self._rand.choice(self.statuses))
            return None


class ScriptedFaults:
    """Plays a fixed list of faults, in order, to requests matching `match` (then stays quiet)."""

    def __init__(self, faults: Iterable[Fault | None], match: Callable[[RequestInfo], bool] | None = None) -> None:
        self._faults = list(faults)
        self._match = match or (lambda _req: True)
        self._lock = threading.Lock()
        self.seen: list[RequestInfo] = []

    def __call__(self, req: RequestInfo) -> Fault | None:
        with self._lock:
            if not self._match(req) or not self._faults:
                return None
            self.seen.append(req)
            return self._faults.pop(0)

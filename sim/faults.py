# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Faults a test plays against DVP clients, through dvp_common's transport hook (`faults=` of KubeClient).

Error rate per verb, added latency per request, watch disconnects; deterministic with a seed. Pass the same
object to the simulator (SimConfig.faults) or to the component under test.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dvp_common.kube.faults import Fault, RequestInfo


@dataclass
class SimFaults:
    error_rate: dict[str, float] = field(default_factory=dict)  # verb -> fraction failed (get/list/create/...)
    statuses: tuple[int, ...] = (500, 503)
    latency: float = 0.0  # seconds added before every request
    watch_drop_rate: float = 0.0  # fraction of watches broken after a few events
    watch_drop_after: tuple[int, int] = (0, 2)
    resources: frozenset[str] | None = None  # limit to these resources ("virtualdisks.virtualization...")
    seed: int | None = 1
    sleep: Callable[[float], None] = time.sleep
    injected: dict[str, int] = field(default_factory=dict)  # verb -> faults injected (tests read it)
    _rand: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        for verb, rate in self.error_rate.items():
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"SimFaults.error_rate[{verb!r}]: {rate} is not within 0..1")
        self._rand = random.Random(self.seed)  # noqa: S311 - not cryptographic

    def __call__(self, req: RequestInfo) -> Fault | None:
        if self.resources is not None and req.resource.split("/")[0] not in self.resources:
            return None
        if self.latency:
            self.sleep(self.latency)
        with self._lock:
            if req.verb == "watch" and self.watch_drop_rate and self._rand.random() < self.watch_drop_rate:
                self.injected["watch-drop"] = self.injected.get("watch-drop", 0) + 1
                return Fault(drop_watch_after=self._rand.randint(*self.watch_drop_after))
            rate = self.error_rate.get(req.verb, 0.0)
            if rate and self._rand.random() < rate:
                self.injected[req.verb] = self.injected.get(req.verb, 0) + 1
                return Fault(status=self._rand.choice(self.statuses), message="injected by dvp_sim")
        return None

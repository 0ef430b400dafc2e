# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Workers that drain a work queue into a reconciler, with per-key backoff and metrics.

Keys are (namespace, name). A result's requeue_after schedules a plain re-check; retry=True or an exception
requeues with the queue's exponential backoff. Errors are logged as one line (API errors never carry secrets).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from dvp_common.runtime.workqueue import ShutDown, WorkQueue
from prometheus_client import CollectorRegistry, Counter, Histogram

from capdvp.controllers.context import Result

log = logging.getLogger(__name__)

Key = tuple[str, str]


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.total = Counter("capdvp_reconcile_total", "Reconciles by controller and outcome",
                             ["controller", "outcome"], registry=registry)
        self.duration = Histogram("capdvp_reconcile_duration_seconds", "Reconcile duration", ["controller"],
                                  registry=registry)


class Controller:
    def __init__(self, name: str, reconcile: Callable[[str, str], Result], *, workers: int = 4,
                 queue: WorkQueue | None = None, metrics: Metrics | None = None) -> None:
        self.name, self.reconcile, self.workers = name, reconcile, workers
        self.queue = queue if queue is not None else WorkQueue(base_delay=0.5, max_delay=300.0, jitter=True)
        self.metrics = metrics
        self._threads: list[threading.Thread] = []

    def enqueue(self, namespace: str, name: str) -> None:
        self.queue.add((namespace, name))

    def _count(self, outcome: str, started: float) -> None:
        if self.metrics:
            self.metrics.total.labels(self.name, outcome).inc()
            self.metrics.duration.labels(self.name).observe(time.monotonic() - started)

    def process_one(self, key: Key) -> None:
        started = time.monotonic()
        try:
            result = self.reconcile(*key)
        except Exception as exc:  # noqa: BLE001 (any failure is retried with backoff, never kills a worker)
            delay = self.queue.add_rate_limited(key)
            log.warning("%s %s/%s: %s: %s (retry in %.1fs)", self.name, key[0], key[1], type(exc).__name__, exc,
                        delay)
            self._count("error", started)
            return
        if result.retry:
            self.queue.add_rate_limited(key)
            self._count("retry", started)
            return
        self.queue.forget(key)
        if result.requeue_after is not None:
            self.queue.add_after(key, result.requeue_after)
        self._count("ok", started)

    def _work(self) -> None:
        while True:
            try:
                key = self.queue.get(timeout=1.0)
            except ShutDown:
                return
            if key is None:
                continue
            try:
                self.process_one(key)  # type: ignore[arg-type]
            finally:
                self.queue.done(key)

    def start(self) -> None:
        for i in range(self.workers):
            t = threading.Thread(target=self._work, name=f"{self.name}-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self, timeout: float = 10.0) -> None:
        self.queue.shutdown()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))

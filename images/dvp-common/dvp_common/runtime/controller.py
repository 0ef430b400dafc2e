# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Workers draining one work queue into a reconcile function, with per-key backoff and metrics.

A reconcile returns a Result: `requeue_after` schedules a plain re-check, `retry` (or any exception) requeues
with the queue's exponential backoff. Errors are one log line naming the key (API errors never carry secrets).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Histogram

from .workqueue import ShutDown, WorkQueue


@dataclass(frozen=True)
class Result:
    requeue_after: float | None = None  # plain re-check later
    retry: bool = False  # failed: requeue with the work queue's exponential backoff


DONE = Result()
RETRY = Result(retry=True)


class ReconcileMetrics:
    """`<prefix>_reconcile_total{controller,outcome}` and `<prefix>_reconcile_duration_seconds{controller}`."""

    def __init__(self, prefix: str, registry: CollectorRegistry | None = None) -> None:
        self.total = Counter(f"{prefix}_reconcile_total", "Reconciles by controller and outcome",
                             ["controller", "outcome"], registry=registry)
        self.duration = Histogram(f"{prefix}_reconcile_duration_seconds", "Reconcile duration", ["controller"],
                                  registry=registry)


def key_text(key: Hashable) -> str:
    return "/".join(str(part) for part in key) if isinstance(key, tuple) else str(key)


class Controller:
    def __init__(self, name: str, reconcile: Callable[[Hashable], Result], *, workers: int = 2,
                 queue: WorkQueue | None = None, metrics: ReconcileMetrics | None = None,
                 logger: logging.Logger | None = None) -> None:
        self.name, self.reconcile, self.workers = name, reconcile, workers
        self.queue = queue if queue is not None else WorkQueue(base_delay=0.5, max_delay=300.0, jitter=True)
        self.metrics = metrics
        self.log = logger or logging.getLogger(__name__)
        self._threads: list[threading.Thread] = []

    def enqueue(self, key: Hashable) -> None:
        self.queue.add(key)

    def call(self, key: Hashable) -> Result:
        """How a key reaches the reconcile function (a subclass may spread a tuple key into arguments)."""
        return self.reconcile(key)

    def _count(self, outcome: str, started: float) -> None:
        if self.metrics:
            self.metrics.total.labels(self.name, outcome).inc()
            self.metrics.duration.labels(self.name).observe(time.monotonic() - started)

    def process_one(self, key: Hashable) -> None:
        started = time.monotonic()
        try:
            result = self.call(key)
        except Exception as exc:  # noqa: BLE001 - any failure is retried with backoff, never kills a worker
            delay = self.queue.add_rate_limited(key)
            self.log.warning("%s %s: %s: %s (retry in %.1fs)", self.name, key_text(key), type(exc).__name__, exc,
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
                self.process_one(key)
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

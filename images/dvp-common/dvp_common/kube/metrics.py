# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Request metrics: Prometheus series plus a plain counter that tests and benchmarks read."""

from __future__ import annotations

import threading
from collections import Counter

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client import Counter as PromCounter

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class RequestMetrics:
    """Counts every HTTP request the client sends (retries included), by verb and resource.

    `registry=None` gives a private registry, so several clients in one process never collide;
    components pass the registry they expose on /metrics.
    """

    def __init__(self, registry: CollectorRegistry | None = None, prefix: str = "dvp_client") -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self._requests = PromCounter(
            f"{prefix}_requests", "API requests sent, by verb, resource and HTTP code ('0' = no response).",
            ["verb", "resource", "code"], registry=self.registry,
        )
        self._errors = PromCounter(
            f"{prefix}_request_errors", "API requests that failed, by verb, resource and HTTP code.",
            ["verb", "resource", "code"], registry=self.registry,
        )
        self._latency = Histogram(
            f"{prefix}_request_duration_seconds", "API request latency (for watches: until the stream opened).",
            ["verb", "resource"], buckets=LATENCY_BUCKETS, registry=self.registry,
        )
        self._lock = threading.Lock()
        self.counts: Counter[tuple[str, str]] = Counter()
        self.errors: Counter[tuple[str, str, int]] = Counter()

    def observe(self, verb: str, resource: str, code: int, seconds: float) -> None:
        self._requests.labels(verb, resource, str(code)).inc()
        self._latency.labels(verb, resource).observe(seconds)
        failed = code == 0 or code >= 400
        if failed:
            self._errors.labels(verb, resource, str(code)).inc()
        with self._lock:
            self.counts[(verb, resource)] += 1
            if failed:
                self.errors[(verb, resource, code)] += 1

    def total(self, verb: str | None = None, resource: str | None = None) -> int:
        with self._lock:
            return sum(n for (v, r), n in self.counts.items()
                       if (verb is None or v == verb) and (resource is None or r == resource))

    def snapshot(self) -> dict[str, int]:
        """{"verb resource": count}, handy for printing from benchmarks."""
        with self._lock:
            return {f"{v} {r}": n for (v, r), n in sorted(self.counts.items())}

    def reset(self) -> None:
        with self._lock:
            self.counts.clear()
            self.errors.clear()

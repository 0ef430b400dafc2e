# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the admission server answered: `<prefix>_admission_reviews_total{route,allowed}` and
`<prefix>_admission_duration_seconds{route}`. `route` is one of the server's own paths (a request to any other
path is a 404 and not counted), `allowed` is "true" or "false": both label sets are bounded by design."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class AdmissionMetrics:
    def __init__(self, registry: CollectorRegistry, routes: list[str], prefix: str = "dvp_webhook") -> None:
        self.registry = registry
        self.reviews = Counter(f"{prefix}_admission_reviews", "AdmissionReviews answered, by route and verdict",
                               ["route", "allowed"], registry=registry)
        self.duration = Histogram(f"{prefix}_admission_duration_seconds", "Time to answer an AdmissionReview",
                                  ["route"], buckets=BUCKETS, registry=registry)
        for route in routes:  # every series from the start: a rate over a denial that never happened is 0
            for allowed in ("true", "false"):
                self.reviews.labels(route, allowed)

    def observe(self, route: str, answer: dict, seconds: float) -> None:
        allowed = bool((answer.get("response") or {}).get("allowed"))
        self.reviews.labels(route, "true" if allowed else "false").inc()
        self.duration.labels(route).observe(seconds)

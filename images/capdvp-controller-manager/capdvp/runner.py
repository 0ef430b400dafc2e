# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp's controllers run on the shared runtime: keys are (namespace, name), metrics named capdvp_*."""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable

from dvp_common.runtime.controller import Controller as _Controller
from dvp_common.runtime.controller import ReconcileMetrics, Result
from dvp_common.runtime.workqueue import WorkQueue
from prometheus_client import CollectorRegistry

log = logging.getLogger(__name__)

Key = tuple[str, str]


class Metrics(ReconcileMetrics):
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        super().__init__("capdvp", registry)


class Controller(_Controller):
    def __init__(self, name: str, reconcile: Callable[[str, str], Result], *, workers: int = 4,
                 queue: WorkQueue | None = None, metrics: Metrics | None = None) -> None:
        super().__init__(name, reconcile, workers=workers, queue=queue, metrics=metrics,  # type: ignore[arg-type]
                         logger=log)

    def call(self, key: Hashable) -> Result:
        return self.reconcile(*key)  # type: ignore[misc, call-arg]

    def enqueue(self, namespace: str, name: str) -> None:  # type: ignore[override]
        self.queue.add((namespace, name))

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CCM's controllers run on the shared runtime: string keys, metrics named dvp_ccm_*."""

from __future__ import annotations

import logging
from collections.abc import Callable

from dvp_common.runtime.controller import DONE, ReconcileMetrics, Result
from dvp_common.runtime.controller import Controller as _Controller
from dvp_common.runtime.workqueue import WorkQueue
from prometheus_client import CollectorRegistry

__all__ = ["DONE", "Controller", "Metrics", "Result"]

log = logging.getLogger("dvp_ccm")


class Metrics(ReconcileMetrics):
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        super().__init__("dvp_ccm", registry)


class Controller(_Controller):
    def __init__(self, name: str, reconcile: Callable[[str], Result], *, workers: int = 2,
                 queue: WorkQueue | None = None, metrics: Metrics | None = None) -> None:
        super().__init__(name, reconcile, workers=workers, queue=queue, metrics=metrics,  # type: ignore[arg-type]
                         logger=log)

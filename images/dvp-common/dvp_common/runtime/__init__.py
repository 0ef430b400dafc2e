# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Controller building blocks: informer, work queue, reconcile workers, leader election, health server, logs,
settings."""

from .controller import DONE, RETRY, Controller, ReconcileMetrics, Result
from .health import HealthServer
from .informer import Informer, key_of
from .leader import LeaderElector
from .predicates import status_only
from .settings import ConfigInvalid, load, parse_duration
from .workqueue import QueueFull, ShutDown, WorkQueue

__all__ = ["DONE", "RETRY", "ConfigInvalid", "Controller", "HealthServer", "Informer", "LeaderElector", "QueueFull",
           "ReconcileMetrics", "Result", "ShutDown", "WorkQueue", "key_of", "load", "parse_duration", "status_only"]

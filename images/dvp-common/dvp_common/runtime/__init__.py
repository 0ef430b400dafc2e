# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Component building blocks: informer, work queue, reconcile workers, leader election, health server, logs,
settings; `manager` (the controller process lifecycle) and `entry` (the `python -m` skeleton) on top."""

from .controller import DONE, RETRY, Controller, ReconcileMetrics, Result
from .health import HealthServer
from .informer import Informer, key_of
from .leader import LeaderElector
from .predicates import status_only
from .settings import ConfigInvalid, group, load, log_level, parse_duration, setting
from .workqueue import QueueFull, ShutDown, WorkQueue

__all__ = ["DONE", "RETRY", "ConfigInvalid", "Controller", "HealthServer", "Informer", "LeaderElector", "QueueFull",
           "ReconcileMetrics", "Result", "ShutDown", "WorkQueue", "group", "key_of", "load", "log_level",
           "parse_duration", "setting", "status_only"]

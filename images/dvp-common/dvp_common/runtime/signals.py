# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""How a component learns it must drain and exit."""

from __future__ import annotations

import logging
import signal
import threading

log = logging.getLogger(__name__)


def stop_on_signals() -> threading.Event:
    """An event set by SIGTERM (the kubelet stopping the pod) or SIGINT (Ctrl-C in a local run)."""
    stop = threading.Event()

    def handle(signum: int, _frame: object) -> None:
        if not stop.is_set():
            log.info("signal %s: stopping", signal.Signals(signum).name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handle)
    return stop

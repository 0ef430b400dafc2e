# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""SIGTERM and SIGINT set the stop event every component waits on."""

import os
import signal

import pytest
from dvp_common.runtime.signals import stop_on_signals


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_sets_the_stop_event(sig):
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        stop = stop_on_signals()
        assert not stop.is_set()
        os.kill(os.getpid(), sig)
        assert stop.wait(5)
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)

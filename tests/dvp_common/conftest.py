# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # fake_apiserver lives beside the tests

from fake_apiserver import FakeApiServer  # noqa: E402

TOKEN = "t0ps3cret-token-value"  # noqa: S105 - a test credential; tests check it never leaks


@pytest.fixture
def api():
    server = FakeApiServer(token=TOKEN)
    yield server
    server.stop()


class FakeTime:
    """Clock and sleep for the client: sleeping only advances the clock."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def fake_time():
    return FakeTime()

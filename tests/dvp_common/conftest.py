# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # dvpc_* helpers live beside the tests

from dvpc_kit import TOKEN, FakeTime  # noqa: E402

from sim.memory_api import MemoryApi  # noqa: E402
from sim.memory_api.http import HttpApi  # noqa: E402

NAMESPACES = ("ns", "ns1", "ns2", "proj", "d8-cloud-provider-dvp")  # the namespaces the tests write in


@pytest.fixture
def api():
    memory = MemoryApi()
    for name in NAMESPACES:
        memory.ensure_namespace(name)
    server = HttpApi(memory, token=TOKEN, max_watch_seconds=2.0)
    yield server
    server.stop()


@pytest.fixture
def fake_time():
    return FakeTime()

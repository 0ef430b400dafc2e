# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # dvpc_* helpers live beside the tests

from dvpc_kit import TOKEN, FakeTime  # noqa: E402

from testkit.dvpc.apiserver import FakeApiServer  # noqa: E402


@pytest.fixture
def api():
    server = FakeApiServer(token=TOKEN)
    yield server
    server.stop()


@pytest.fixture
def fake_time():
    return FakeTime()

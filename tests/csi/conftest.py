# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the CSI tests: an in-memory DVP with two VMs of our cluster, and the driver serving it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # csi_* helpers live beside the tests

from csi_env import CLUSTER, NODE, Running, make_settings, serve  # noqa: E402
from dvp_csi.dvp.memory import MemoryDvp  # noqa: E402


@pytest.fixture
def dvp() -> MemoryDvp:
    m = MemoryDvp()
    m.add_vm("vm-worker-0", NODE, CLUSTER, static_disks=2)
    m.add_vm("vm-worker-1", "worker-1", CLUSTER)
    return m


@pytest.fixture
def csi(tmp_path, dvp) -> Iterator[Running]:
    yield from serve(make_settings(tmp_path), dvp)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the CSI tests: the driver serving a real DVP API whose controllers the simulator plays, with two
VMs of our cluster (tests/dvp_sim is the one model of DVP; no in-memory double)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # csi_* helpers live beside the tests

from testkit.csi.env import Running  # noqa: E402
from testkit.csi.sim import SimEnv, sim_env  # noqa: E402


@pytest.fixture
def dvp(dvp_api, tmp_path) -> Iterator[SimEnv]:
    yield from sim_env(dvp_api, tmp_path)


@pytest.fixture
def csi(dvp) -> Running:
    return dvp.csi

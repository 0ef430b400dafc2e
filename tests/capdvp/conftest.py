# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.harness.capi_controller import CapiController
from testkit.harness.processes import HarnessError

sys.path.insert(0, str(Path(__file__).parent))

from testkit.capdvp.world import World  # noqa: E402


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture(scope="module")
def capi(capi_api) -> Iterator[CapiController]:
    """The real Cluster API core controller, one per test module."""
    controller = CapiController(capi_api)
    try:
        controller.start()
    except HarnessError as exc:
        pytest.fail(f"the Cluster API core controller did not start: {exc}", pytrace=False)
    yield controller
    controller.stop()

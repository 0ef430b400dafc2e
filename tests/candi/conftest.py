# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures running the real OpenTofu (.bin/tofu) on a copy of candi/ with the provider from the local mirror."""

import pytest

from testkit.candi.tofu_runner import Tofu, ToolMissing, prepare


@pytest.fixture(scope="session")
def tofu(tmp_path_factory) -> Tofu:
    try:
        return prepare(tmp_path_factory.mktemp("candi"))
    except ToolMissing as exc:
        pytest.fail(str(exc), pytrace=False)

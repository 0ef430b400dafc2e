# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import pathlib

import pytest
from modlint_rules.sample import write_module


@pytest.fixture
def module_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    """The sample module (modlint_rules/sample.py) written to a temporary folder."""
    return write_module(tmp_path / "module")

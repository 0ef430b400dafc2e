# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The pinned tools these tests run (.bin/, from tools/build); a missing one fails the test naming the fix."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CRANE = ROOT / ".bin" / "crane"
TOFU = ROOT / ".bin" / "tofu"
PROVIDER = ROOT / ".bin" / "terraform-provider-kubernetes"


def need(binary: Path) -> Path:
    if not os.access(binary, os.X_OK):
        pytest.fail(f"{binary} is missing: build it with `tools/build {binary.name}` (or `make tools`)", pytrace=False)
    return binary

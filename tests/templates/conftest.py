# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the template tests: rendered cases (cached per session) and the upstream CRDs."""

from __future__ import annotations

import functools
import subprocess
from typing import Any

import pytest
from chart import matrix
from chart.render import ROOT, render_values


@functools.cache
def _rendered(name: str) -> tuple[dict[str, Any], ...]:
    return tuple(render_values(matrix.case(name)))


@pytest.fixture(scope="session")
def rendered():
    """rendered(case name) -> the objects of that matrix case (rendered once per session)."""
    return lambda name: [dict(o) for o in _rendered(name)]


@pytest.fixture(scope="session")
def upstream_crds() -> None:
    """Fetch the upstream CRDs (VolumeSnapshotClass & co.) into .cache/upstream when they are not there yet.

    Without the tool the validation itself reports each custom resource it has no schema for, by name.
    """
    target = ROOT / ".cache" / "upstream"
    tool = ROOT / "tools" / "fetch-upstream"
    if (target.is_dir() and any(target.rglob("*.yaml"))) or not tool.exists():
        return
    proc = subprocess.run([str(tool)], cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.fail(f"tools/fetch-upstream failed: {proc.stderr.strip()[-500:]}")

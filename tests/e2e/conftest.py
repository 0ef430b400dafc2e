# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The clean scenario, walked once per test process: every test that reads it is in test_clean_run.py (what it made
and left, what its components exported: demo.scrape), so `make test`'s two workers, each taking a whole file,
never walk it twice."""

from __future__ import annotations

import io

import pytest

from demo.environment import Demo, Settings, StepFailed
from demo.progress import Progress
from demo.walk import walk


def run(settings: Settings, work):
    out = io.StringIO()
    demo = Demo(Progress(out=out), settings, work)
    try:
        result = walk(demo)
    except StepFailed as exc:
        raise AssertionError(f"{exc}\n{out.getvalue()}") from None
    finally:
        demo.stop()
    return result, out.getvalue()


@pytest.fixture(scope="session")
def clean_run(tmp_path_factory):
    """(Result, progress log) of the clean scenario."""
    return run(Settings(), tmp_path_factory.mktemp("clean-scenario"))

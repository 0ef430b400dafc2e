# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Timing helpers for benchmark modules: medians of wall-clock runs, in milliseconds."""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence


def median_ms(fn: Callable[[], object], runs: int = 20, warmup: int = 1) -> float:
    """Median wall time of `fn()` over `runs` calls, after `warmup` unmeasured calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(samples), 2)


def process_ms(argv: Sequence[str], runs: int = 20, env: Mapping[str, str] | None = None,
               cwd: str | None = None, timeout: float = 60) -> float:
    """Median start-to-exit time of a process; a failing run raises (a benchmark of a crash means nothing)."""
    def once() -> None:
        subprocess.run(list(argv), env=dict(env) if env is not None else None, cwd=cwd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    return median_ms(once, runs=runs)


def figure(name: str, value: float, unit: str, goal: str | float | None = None) -> dict:
    return {"figure": name, "value": value, "unit": unit, "goal": goal}

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Timing helpers for benchmark modules: medians of wall-clock runs, in milliseconds; the sizes of the growth
curves and memory peaks."""

from __future__ import annotations

import os
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


SIZES_ENV = "CPDVP_BENCH_SIZES"
DEFAULT_SIZES = (10, 100)  # n = 1000 takes minutes per area on 2 cores: asked for with CPDVP_BENCH_SIZES=10,100,1000


def sizes(default: Sequence[int] = DEFAULT_SIZES) -> tuple[int, ...]:
    """The n of the growth curves: `$CPDVP_BENCH_SIZES` (comma-separated), else `default`."""
    raw = os.environ.get(SIZES_ENV, "").strip()
    if not raw:
        return tuple(default)
    try:
        out = tuple(int(x) for x in raw.split(","))
    except ValueError:
        raise ValueError(f"{SIZES_ENV}={raw!r}: expected comma-separated positive integers") from None
    if any(n < 1 for n in out):
        raise ValueError(f"{SIZES_ENV}={raw!r}: expected comma-separated positive integers")
    return out


def growth(per_n: Mapping[int, float]) -> float:
    """A per-operation figure at the largest n over the same at the smallest n: 1.0 when constant in n."""
    small, large = per_n[min(per_n)], per_n[max(per_n)]
    return round(large / small, 2) if small else (1.0 if not large else float("inf"))


def traced_peak_mib(fn: Callable[[], object]) -> tuple[object, float]:
    """`fn()` and the peak of Python memory it allocated (tracemalloc), for components run in the bench's
    own process, where the process's RSS would mix in the API servers' clients and the bench itself."""
    import tracemalloc

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, round((peak - base) / 2**20, 2)


def peak_rss_mib(pid: int) -> float:
    """The peak resident set (VmHWM) of a running process."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmHWM for pid {pid}")

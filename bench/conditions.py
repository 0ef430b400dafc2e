# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The condition check (tests/dvp_common/test_conditions_are_dvps.py): how many condition strings of ours it holds
to DVP's pinned API constants, and what one full run costs (parsing both API versions, the simulator, CONTRACT.md,
components, hooks and candi)."""

from __future__ import annotations

from bench.measure import figure, median_ms


def figures():
    from testkit import dvp_conditions

    report = dvp_conditions.run()
    if report.problems:
        raise RuntimeError(f"the condition check fails: {report.problems[0]}")
    yield figure("conditions: strings checked against DVP's constants", report.checked, "strings")
    yield figure("conditions: one full check", median_ms(dvp_conditions.run, runs=5), "ms", 2000)

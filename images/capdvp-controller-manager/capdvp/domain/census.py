# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Machines by the phase of their VirtualMachine, for the `capdvp_machines{phase}` gauge (pure).

The label set is bounded by design: DVP's VirtualMachine phases, plus `Other` for a phase this version does not
know (a newer DVP) so that no free text ever becomes a label value."""

from __future__ import annotations

from collections.abc import Iterable

PHASES = ("Pending", "Starting", "Running", "Migrating", "Stopping", "Stopped", "Terminating", "Degraded")
OTHER = "Other"


def by_phase(phases: Iterable[str | None]) -> dict[str, int]:
    """Every known phase (zeros included, so each series exists from the start) plus `Other`."""
    counts = dict.fromkeys((*PHASES, OTHER), 0)
    for p in phases:
        counts[(p or "Pending") if (p or "Pending") in PHASES else OTHER] += 1
    return counts

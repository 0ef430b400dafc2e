# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the dvp_common tests (a test credential, a fake clock, a watch-opening hook)."""

from __future__ import annotations

TOKEN = "t0ps3cret-token-value"  # noqa: S105 - a test credential; tests check it never leaks


class FakeTime:
    """Clock and sleep for the client: sleeping only advances the clock."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class OnWatch:
    """A transport hook that runs the next action each time the client opens a watch (so after a wait's
    LIST): DVP-side changes then land while the wait is watching, however slow the machine is.
    `faults` optionally answers those same watches with a Fault (e.g. a drop)."""

    def __init__(self, *actions, faults=()):
        self.actions = list(actions)
        self.faults = list(faults)

    def __call__(self, req):
        if req.verb != "watch":
            return None
        if self.actions:
            self.actions.pop(0)()
        return self.faults.pop(0) if self.faults else None

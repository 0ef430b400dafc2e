# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The scenario walk (API servers, simulator, hooks, components); being built, see issue 11."""

from __future__ import annotations

from demo.progress import Progress


def run_scenario(progress: Progress) -> int:
    progress.line("scenario: not available yet (the chart summary above is what the module deploys)")
    return 0

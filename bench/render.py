# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Full-module render time: every component on, the example values, median of 20 (after one warm-up that loads
the chart). `render_full_module_ms` is the Helm engine producing the manifests, as Deckhouse pays it; the other
figures add what the test harness does on top (YAML to objects) and the helm v3 CLI for comparison."""

from __future__ import annotations

from pathlib import Path

from bench.measure import figure, median_ms

ROOT = Path(__file__).resolve().parents[1]
RUNS = 20
GOAL_MS = 100


def figures() -> list[dict]:
    from chart.render import module_values, render_files, render_files_cli, render_module

    values = module_values(all_on=True)
    out = [
        figure("render_full_module_ms", median_ms(lambda: render_files(values), runs=RUNS), "ms", f"<= {GOAL_MS}"),
        figure("render_full_module_to_objects_ms", median_ms(lambda: render_module(all_on=True), runs=RUNS), "ms",
               None),
    ]
    if (ROOT / ".bin" / "helm").exists():
        out.append(figure("render_full_module_helm_cli_ms", median_ms(lambda: render_files_cli(values), runs=5),
                          "ms", None))
    return out


run = figures

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m demo [--render-only] [--images]: what the module deploys, then the whole scenario against a simulated
DVP; --images starts the components from their built image rootfs (demo.images; the clean scenario)."""

from __future__ import annotations

import argparse
import sys

from harness import lifetime

from demo.chart_summary import render_summary
from demo.progress import Progress, table


def print_chart(progress: Progress) -> None:
    with progress.step("render the module (testkit/harness/example_values.yaml, every component on)"):
        summary = render_summary()
        progress.line(f"   {len(summary.objects)} objects, {len(summary.kinds)} kinds")
    rows = [(c, sum(k.values()), ", ".join(kind if n == 1 else f"{n}x{kind}" for kind, n in sorted(k.items())))
            for c, k in sorted(summary.per_component.items())]
    print(table(("component", "objects", "kinds"), rows))
    print()
    print(table(("workload", "kind", "containers"),
                [(w.name, w.kind, ", ".join(w.containers)) for w in summary.workloads]))
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m demo", description=__doc__)
    parser.add_argument("--render-only", action="store_true", help="only render the chart and print the summary")
    parser.add_argument("--images", action="store_true",
                        help="run ccm, capdvp, discoverer, the webhooks and the CSI controller from their images")
    args = parser.parse_args(argv)
    lifetime.exit_on_signals()  # SIGTERM/SIGHUP stop the servers and components as Ctrl-C does
    progress = Progress()
    print_chart(progress)
    if args.render_only:
        return 0
    from demo.scenario import Settings, run_scenario

    return run_scenario(progress, Settings(images=args.images))


if __name__ == "__main__":
    sys.exit(main())

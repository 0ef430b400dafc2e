# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""python -m demo [--render-only] [--images] [--takeover]: what the module deploys, then the whole scenario against
a simulated DVP; --images starts the components from their built image rootfs (demo.images; the clean scenario);
--takeover builds a cluster as Deckhouse's module leaves it, prints the pre-switch report on it and switches it to
this module (demo.switch)."""

from __future__ import annotations

import argparse
import json
import sys

from demo.chart_summary import render_summary
from demo.environment import Demo, Result, Settings, StepFailed
from demo.progress import Progress, table
from demo.walk import walk
from testkit.harness import lifetime


def print_chart(progress: Progress) -> None:
    with progress.step("render the module (build/chart/example_values.yaml, every component on)"):
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
    parser.add_argument("--takeover", action="store_true",
                        help="the switch of an upstream-built cluster: the pre-switch report, then the module at work")
    args = parser.parse_args(argv)
    lifetime.exit_on_signals()  # SIGTERM/SIGHUP stop the servers and components as Ctrl-C does
    progress = Progress()
    print_chart(progress)
    if args.render_only:
        return 0
    if args.takeover:
        return run_takeover(progress)
    return run_scenario(progress, Settings(images=args.images))


def run_scenario(progress: Progress, settings: Settings | None = None) -> int:
    demo = Demo(progress, settings)
    try:
        result = walk(demo)
    except StepFailed as exc:
        progress.line(f"FAILED: {exc} (component logs in .tmp/demo/latest/)")
        return 1
    finally:
        demo.stop()
    print_result(result)
    if demo.s.images and result.unavailable:  # the point of image mode is that every image runs
        return 1
    return 0 if not result.leftovers else 1


def run_takeover(progress: Progress) -> int:
    """The switch over an upstream-built cluster (demo.switch): the pre-switch report, then the module at work."""
    from demo.switch import switch

    demo = Demo(progress, Settings())
    try:
        result = switch(demo)
    except StepFailed as exc:
        progress.line(f"FAILED: {exc} (component logs in {demo.work})")
        return 1
    finally:
        demo.stop()
    changed = sorted(k for k, uid in result.after.items() if result.before.get(k) != uid)
    left = sorted(k for k in result.removed if k in result.after)
    print()
    print(table(("figure", "value"), [
        ("pre-switch report exit code", result.report_code),
        ("parent objects before the switch", len(result.before)),
        ("removed by the walk's deletes (this cluster's)", len(result.removed) - len(left)),
        ("kept with the same uid (dhctl's, the other cluster's)", len(result.after) - len(changed)),
        ("changed or new (uid)", len(changed)), ("'not ours' said of this cluster's objects", len(result.foreign)),
        ("LoadBalancer address (parent -> guest)", f"{result.parent_lb_address} -> {result.lb_address}"),
        ("the volume's nodes", ", ".join(result.volume_nodes))]))
    return 0 if result.report_code == 0 and not changed and not left and not result.foreign else 1


def print_result(r: Result) -> None:
    kinds = sorted(set(r.created) | set(r.deleted))
    print()
    print(table(("DVP kind", "created", "deleted", "left"),
                [(k, r.created.get(k, 0), r.deleted.get(k, 0), len(r.leftovers.get(k, []))) for k in kinds]))
    print()
    print(table(("step", "seconds"), [(k, f"{v:.1f}") for k, v in r.step_times.items()]))
    print()
    print(table(("figure", "value"), [
        ("DVP API requests (virtualization group, Services, Secrets; all clients)", r.dvp_requests),
        ("hook runs", r.hook_runs), ("nodes initialised by the CCM", r.nodes_initialized),
        ("LoadBalancer address", r.lb_address), ("wall time, s", f"{r.wall:.1f}"),
        ("components not available", ", ".join(f"{k} ({v})" for k, v in r.unavailable.items()) or "none")]))
    print(json.dumps({"demo": "summary", "created": r.created, "deleted": r.deleted,
                      "leftovers": r.leftovers, "dvp_requests": r.dvp_requests}, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())

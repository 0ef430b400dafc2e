# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the module would deploy: the chart rendered with the example values, summarised per component."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from chart.render import module_values, parse_files, render_files

WORKLOAD_KINDS = ("Deployment", "DaemonSet")


@dataclass(frozen=True)
class Workload:
    component: str
    kind: str
    name: str
    containers: tuple[str, ...]


@dataclass(frozen=True)
class ChartSummary:
    objects: list[dict[str, Any]]
    kinds: Counter
    per_component: dict[str, Counter]
    workloads: list[Workload]


def component_of(template_path: str) -> str:
    """templates/<component>/x.yaml -> <component>; top-level templates belong to the module itself."""
    parts = template_path.split("/")
    return parts[2] if len(parts) > 3 else "module"


def summarize(files: dict[str, str]) -> ChartSummary:
    objects: list[dict[str, Any]] = []
    per_component: dict[str, Counter] = {}
    workloads: list[Workload] = []
    for path in sorted(files):
        docs = parse_files({path: files[path]})
        component = component_of(path)
        for obj in docs:
            objects.append(obj)
            per_component.setdefault(component, Counter())[obj["kind"]] += 1
            if obj["kind"] in WORKLOAD_KINDS:
                pod = obj["spec"]["template"]["spec"]
                names = tuple(c["name"] for c in pod.get("containers", []))
                workloads.append(Workload(component, obj["kind"], obj["metadata"]["name"], names))
    return ChartSummary(objects, Counter(o["kind"] for o in objects), per_component, workloads)


def render_summary(*, all_on: bool = True) -> ChartSummary:
    """Render with build/chart/example_values.yaml (every component on by default)."""
    return summarize(render_files(module_values(all_on=all_on)))

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Pod templates inside rendered workload objects."""

from __future__ import annotations

from .findings import Rendered

CONTROLLERS = ("Deployment", "DaemonSet", "StatefulSet")
WORKLOADS = (*CONTROLLERS, "Pod", "Job", "CronJob")


def pod_spec(item: Rendered) -> dict | None:
    obj = item.obj
    if item.kind == "Pod":
        return obj.get("spec") or {}
    if item.kind == "CronJob":
        return (((obj.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}).get("template", {}).get(
            "spec") or {}
    if item.kind in WORKLOADS:
        return ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return None


def pod_labels(item: Rendered) -> dict:
    obj = item.obj
    if item.kind == "Pod":
        return (obj.get("metadata") or {}).get("labels") or {}
    return (((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}


def containers(spec: dict, init: bool = True) -> list[dict]:
    out = list(spec.get("containers") or [])
    if init:
        out = list(spec.get("initContainers") or []) + out
    return out


def workloads(objects: list[Rendered]):
    """(object, pod spec) for every object that runs pods."""
    for item in objects:
        spec = pod_spec(item)
        if spec is not None:
            yield item, spec

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Small lookups over rendered objects, for tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

WORKLOAD_KINDS = ("Deployment", "DaemonSet", "StatefulSet")


def find(objects: list[dict[str, Any]], kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
    hits = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name
            and (namespace is None or o["metadata"].get("namespace") == namespace)]
    if len(hits) != 1:
        raise LookupError(f"{kind} {name}: found {len(hits)} objects")
    return hits[0]


def names(objects: list[dict[str, Any]], kind: str) -> list[str]:
    return sorted(o["metadata"]["name"] for o in objects if o["kind"] == kind)


def workloads(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] in WORKLOAD_KINDS]


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    return workload["spec"]["template"]["spec"]


def containers(workload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    spec = pod_spec(workload)
    yield from spec.get("initContainers", [])
    yield from spec["containers"]


def container(workload: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in pod_spec(workload)["containers"] if c["name"] == name)


def arg_value(c: dict[str, Any], flag: str) -> str:
    values = [a.split("=", 1)[1] for a in c.get("args", []) if a.startswith(flag + "=")]
    if len(values) != 1:
        raise LookupError(f"container {c['name']}: flag {flag} given {len(values)} times")
    return values[0]

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Taint keys the CCM reads or writes, and pure helpers over a Node's taint list."""

from __future__ import annotations

from typing import Any

UNINITIALIZED = "node.cloudprovider.kubernetes.io/uninitialized"
SHUTDOWN = "node.cloudprovider.kubernetes.io/shutdown"
OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
OUT_OF_SERVICE_VALUE = "nodeshutdown"  # the value the Kubernetes docs use for non-graceful shutdown
TO_BE_DELETED = "ToBeDeletedByClusterAutoscaler"

Taint = dict[str, Any]


def taints(node: dict[str, Any]) -> list[Taint]:
    return list((node.get("spec") or {}).get("taints") or [])


def has(node: dict[str, Any], key: str) -> bool:
    return any(t.get("key") == key for t in taints(node))


def find(node: dict[str, Any], key: str) -> Taint | None:
    return next((t for t in taints(node) if t.get("key") == key), None)


def shutdown_taint() -> Taint:
    return {"key": SHUTDOWN, "effect": "NoSchedule"}


def out_of_service_taint(time_added: str) -> Taint:
    # timeAdded records when we tainted; the Node deletion hold is measured from it (restart-safe).
    return {"key": OUT_OF_SERVICE, "value": OUT_OF_SERVICE_VALUE, "effect": "NoExecute", "timeAdded": time_added}


def with_taint(current: list[Taint], taint: Taint) -> list[Taint]:
    return [t for t in current if t.get("key") != taint["key"]] + [taint]


def without(current: list[Taint], key: str) -> list[Taint]:
    return [t for t in current if t.get("key") != key]

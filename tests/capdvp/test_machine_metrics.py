# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp_machine_provisioning_duration_seconds: one observation per machine, even when a pass reads the machine
from a cache its own status write has not reached yet (the reconciler then reports it provisioned again)."""

from __future__ import annotations

from capdvp import machine_metrics
from capdvp.machine_metrics import MachineMetrics
from prometheus_client import CollectorRegistry

NAME = "capdvp_machine_provisioning_duration_seconds"


def count(registry: CollectorRegistry) -> float:
    return registry.get_sample_value(f"{NAME}_count")


def test_a_machine_reported_provisioned_twice_is_observed_once():
    registry = CollectorRegistry()
    metrics = MachineMetrics(registry, lambda: [])
    metrics.provisioned("uid-a", 42.0)
    metrics.provisioned("uid-a", 43.0)  # the stale pass
    metrics.provisioned("uid-b", 7.0)
    assert count(registry) == 2
    assert registry.get_sample_value(f"{NAME}_sum") == 49.0


def test_the_memory_of_observed_machines_is_bounded(monkeypatch):
    monkeypatch.setattr(machine_metrics, "SEEN_CAP", 2)
    registry = CollectorRegistry()
    metrics = MachineMetrics(registry, lambda: [])
    for uid in ("a", "b", "c"):
        metrics.provisioned(uid, 1.0)
    metrics.provisioned("c", 1.0)  # still remembered
    metrics.provisioned("a", 1.0)  # forgotten, the oldest: observed again
    assert count(registry) == 4

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The cloud_data_discovery_* metrics (upstream names and labels, plus our instance-type and last-success
figures). Each round replaces the labelled series wholesale, so vanished disks or conditions disappear. Label
values are names the API server validated (and we re-checked) or texts from a fixed set: never upstream free
text."""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Gauge

from .domain.conditions import Condition
from .domain.instance_types import InstanceType
from .domain.orphans import OrphanedDisk
from .domain.shapes import KINDS, Skipped

DISCOVERY_DATA, INSTANCE_TYPES, DISKS_META, CONDITIONS = "discovery_data", "instance_types", "disks_meta", "conditions"


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.request_error = Gauge("cloud_data_discovery_cloud_request_error",
                                   "1 when the last DVP request of this type failed", ["type"], registry=r)
        self.update_error = Gauge("cloud_data_discovery_update_resource_error",
                                  "1 when the last write to the guest cluster gave up", registry=r)
        self.orphaned = Gauge("cloud_data_discovery_orphaned_disk_info",
                              "a VirtualDisk of this cluster that no PV, VM or attachment references",
                              ["id", "name"], registry=r)
        self.conditions = Gauge("cloud_data_discovery_cloud_conditions_error",
                                "1 for each cloud condition that is not ok", ["name", "message"], registry=r)
        self.instance_types = Gauge(
            "cloud_data_discovery_instance_type_info", "a sizing policy of a VirtualMachineClass",
            ["virtual_machine_class", "policy", "cores_min", "cores_max", "memory_min", "memory_max",
             "core_fractions"], registry=r)
        self.skipped = Gauge("cloud_data_discovery_skipped_objects",
                             "objects of this type left out of the last round as malformed", ["type"], registry=r)
        self.round_error = Gauge("cloud_data_discovery_round_error",
                                 "1 when the last round failed (the log says why)", registry=r)
        self.last_success = Gauge("cloud_data_discovery_last_success_timestamp_seconds",
                                  "when the discovery data was last confirmed", registry=r)
        for kind in (DISCOVERY_DATA, INSTANCE_TYPES, DISKS_META, CONDITIONS):
            self.request_error.labels(kind).set(0)
        self.update_error.set(0)
        self.round_error.set(0)
        self.set_skipped([])

    def set_skipped(self, skipped: Iterable[Skipped]) -> None:
        counts = dict.fromkeys(KINDS, 0)
        for s in skipped:
            counts[s.kind] += 1
        for kind, n in counts.items():
            self.skipped.labels(kind).set(n)

    def set_orphans(self, disks: Iterable[OrphanedDisk]) -> None:
        self.orphaned.clear()
        for d in disks:
            self.orphaned.labels(d.uid, d.name).set(1)

    def set_conditions(self, conditions: Iterable[Condition]) -> None:
        self.conditions.clear()
        for c in conditions:
            if not c.ok:
                self.conditions.labels(c.name, c.label).set(1)

    def set_instance_types(self, types: Iterable[InstanceType]) -> None:
        self.instance_types.clear()
        for t in types:
            self.instance_types.labels(t.virtual_machine_class, str(t.policy), str(t.cores_min), str(t.cores_max),
                                       t.memory_min, t.memory_max, ",".join(t.core_fractions)).set(1)

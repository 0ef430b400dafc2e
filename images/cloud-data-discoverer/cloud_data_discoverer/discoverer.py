# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One discovery round, as upstream orders it: conditions, instance types, discovery data, orphaned disks.

A failed DVP read never overwrites what the guest holds: the discovery Secret keeps its last good content,
and the conditions ConfigMap says why. Health: liveness fails only once a guest write gave up (upstream);
readiness also fails while DVP is unreachable.
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from dvp_common.dvp import labels as L
from dvp_common.kube import KubeError

from . import metrics as m
from .domain import conditions as cond
from .domain import discovery, instance_types, orphans
from .dvp import DVPReader
from .guest import CLUSTER_CONFIGURATION, Guest, WriteGaveUp

log = logging.getLogger("cloud_data_discoverer")


@dataclass
class RoundResult:
    dvp_error: str | None = None
    discovery_written: bool = False
    conditions: list[cond.Condition] = field(default_factory=list)
    orphans: list[orphans.OrphanedDisk] = field(default_factory=list)
    instance_types: list[instance_types.InstanceType] = field(default_factory=list)
    write_error: str | None = None


class Discoverer:
    def __init__(self, dvp: DVPReader, guest: Guest, metrics: m.Metrics, cluster_uuid: str,
                 quota_threshold: float = 0.9, orphan_min_age: float = 600.0,
                 now: Callable[[], datetime.datetime] = lambda: datetime.datetime.now(datetime.UTC)) -> None:
        self.dvp, self.guest, self.metrics, self.cluster_uuid = dvp, guest, metrics, cluster_uuid
        self.quota_threshold, self.orphan_min_age, self.now = quota_threshold, orphan_min_age, now
        self.dvp_error: str | None = "no round yet"
        self.write_error: str | None = None
        self.rounds = 0

    # health checks (dvp_common.runtime.HealthServer: None is fine, a string is the failure)
    def liveness(self) -> str | None:
        return self.write_error

    def readiness(self) -> str | None:
        return self.dvp_error

    def run_once(self) -> RoundResult:
        result = RoundResult()
        self.rounds += 1
        result.conditions = self._conditions(result)
        if result.dvp_error is None:
            self._instance_types(result)
            self._discovery(result)
            self._orphans(result)
        else:  # DVP did not answer the first read: nothing else is asked this round, every kind is stale
            for kind in (m.INSTANCE_TYPES, m.DISCOVERY_DATA, m.DISKS_META):
                self.metrics.request_error.labels(kind).set(1)
        self._write_conditions(result)
        self.dvp_error, self.write_error = result.dvp_error, result.write_error
        self.metrics.update_error.set(1 if result.write_error else 0)
        return result

    def run(self, period: float, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self.run_once()
            except Exception:  # noqa: BLE001 - one bad round must not end the loop
                log.exception("discovery round failed")
            stop.wait(period)

    def _dvp_failed(self, result: RoundResult, kind: str, exc: KubeError) -> None:
        self.metrics.request_error.labels(kind).set(1)
        result.dvp_error = result.dvp_error or str(exc)
        log.error("DVP %s: %s", kind, exc)

    def _conditions(self, result: RoundResult) -> list[cond.Condition]:
        try:
            quotas = self.dvp.quotas()
        except KubeError as exc:
            self._dvp_failed(result, m.CONDITIONS, exc)
            return [cond.reachability(str(exc))]
        self.metrics.request_error.labels(m.CONDITIONS).set(0)
        return [cond.reachability(None), *cond.quota_conditions(quotas, self.quota_threshold)]

    def _instance_types(self, result: RoundResult) -> None:
        try:
            result.instance_types = instance_types.catalog(self.dvp.vm_classes())
        except KubeError as exc:
            self._dvp_failed(result, m.INSTANCE_TYPES, exc)
            return
        self.metrics.request_error.labels(m.INSTANCE_TYPES).set(0)
        self.metrics.set_instance_types(result.instance_types)

    def _discovery(self, result: RoundResult) -> None:
        try:
            classes = self.dvp.storage_classes()
        except KubeError as exc:
            self._dvp_failed(result, m.DISCOVERY_DATA, exc)
            return
        self.metrics.request_error.labels(m.DISCOVERY_DATA).set(0)
        try:
            installer = self.guest.starting_data()
            try:
                starting = discovery.parse(installer)
            except discovery.InvalidDiscoveryData as exc:
                # Not ours to fix and no reason to restart: say so, keep the last good Secret.
                message = f"Secret \"{self.guest.namespace}/{CLUSTER_CONFIGURATION}\": {exc}"
                result.conditions.append(cond.Condition(cond.DISCOVERY_DATA_VALID, False, message))
                self.metrics.request_error.labels(m.DISCOVERY_DATA).set(1)
                log.error("discovery data: %s", message)
                return
            result.conditions.append(cond.Condition(cond.DISCOVERY_DATA_VALID, True, "the installer's data parses"))
            try:
                last = discovery.parse(self.guest.current_discovery())
            except discovery.InvalidDiscoveryData:
                last = {}  # ours and broken (edited by hand?): rebuilt from the installer's data and DVP
            text = discovery.render(discovery.merge(discovery.base(starting, last), classes))
            result.discovery_written = self.guest.write_discovery(text)
        except (KubeError, WriteGaveUp) as exc:
            result.write_error = str(exc)
            log.error("discovery data: %s", exc)
            return
        self.metrics.last_success.set(self.now().timestamp())
        if result.discovery_written:
            log.info("discovery data updated (%d DVP storage classes)", len(classes))

    def _orphans(self, result: RoundResult) -> None:
        try:
            disks, vms, bdas = self.dvp.our_disks(), self.dvp.vms(), self.dvp.attachments()
            pvs = self.guest.persistent_volumes()
        except KubeError as exc:
            self.metrics.request_error.labels(m.DISKS_META).set(1)
            log.error("orphaned disks: %s", exc)
            return
        self.metrics.request_error.labels(m.DISKS_META).set(0)
        referenced = orphans.referenced_names(pvs, vms, bdas)
        result.orphans = orphans.find_orphans(disks, referenced, self.cluster_uuid, L.CLUSTER_UUID, L.COMPONENT,
                                              self.now(), self.orphan_min_age)
        self.metrics.set_orphans(result.orphans)

    def _write_conditions(self, result: RoundResult) -> None:
        self.metrics.set_conditions(result.conditions)
        try:
            self.guest.write_conditions(cond.render(result.conditions))
        except (KubeError, WriteGaveUp) as exc:
            result.write_error = result.write_error or str(exc)
            log.error("cloud conditions: %s", exc)

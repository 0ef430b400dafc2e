# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The controller's report of DVP state on each periodic pass, as metrics: attachments DVP has not attached yet
(with their age) and volumes DVP reports lost or failed (domain/health.py), one series each, gone once resolved.

Series are replaced in place (set the new, remove the resolved), never cleared first: a scrape in between would
see them vanish, and Prometheus would restart the `for:` of the alerts that read them."""

from __future__ import annotations

import datetime

from prometheus_client import Gauge

from . import metrics
from .access import Dvp
from .domain import census
from .domain.health import disk_health
from .domain.pending import pending_attachments


def _replace(gauge: Gauge, values: dict[tuple[str, ...], float], shown: set[tuple[str, ...]]) -> None:
    for labels, value in values.items():
        gauge.labels(*labels).set(value)
    for labels in shown - set(values):
        gauge.remove(*labels)
    shown.clear()
    shown.update(values)


class Observer:
    def __init__(self, dvp: Dvp) -> None:
        self.dvp = dvp
        self._pending: set[tuple[str, ...]] = set()
        self._abnormal: set[tuple[str, ...]] = set()

    def observe(self, now: datetime.datetime) -> None:
        attachments, disks = self.dvp.attachments.list(), self.dvp.disks.list()
        pending = pending_attachments(attachments, now)
        for p, n in census.by_phase(attachments, census.ATTACHMENT_PHASES).items():
            metrics.ATTACHMENTS.labels(p).set(n)
        for p, n in census.by_phase(disks, census.DISK_PHASES).items():
            metrics.VOLUMES.labels(p).set(n)
        abnormal = {}
        for disk in disks:
            health = disk_health(disk)
            if health.abnormal:
                abnormal[(disk["metadata"]["name"], health.phase, health.reason)] = 1.0
        metrics.ATTACHMENTS_PENDING.set(len(pending))
        _replace(metrics.ATTACHMENT_PENDING_SECONDS, {(p.name, p.volume, p.vm, p.phase): p.seconds for p in pending},
                 self._pending)
        _replace(metrics.VOLUME_ABNORMAL, abnormal, self._abnormal)

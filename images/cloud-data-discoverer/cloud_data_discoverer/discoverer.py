# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One discovery round, as upstream orders it: conditions, instance types, discovery data, orphaned disks.

The instance types go to node-manager's InstanceTypesCatalog too (domain.catalog); a guest without node-manager
does not serve that kind, which is said once in the log and is no failure.

A failed DVP read never overwrites what the guest holds: the discovery Secret keeps its last good content,
and the conditions ConfigMap says why. Each object is judged alone: a malformed one is skipped with a log line
and counted, the round goes on. Health: liveness fails only once a guest write gave up on errors that may pass
(upstream); readiness also fails while DVP is unreachable, after a write the API refused for good (or too
large to try), and after a phase failed.
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from dvp_common.dvp import Inventory
from dvp_common.dvp import labels as L
from dvp_common.kube import KubeError

from . import errors
from . import guest as g
from . import metrics as m
from .domain import catalog, discovery, instance_types, orphans, shapes
from .domain import conditions as cond
from .domain.shapes import Skipped
from .guest import CLUSTER_CONFIGURATION, DISCOVERY_SECRET, Guest, WriteGaveUp, WriteRefused

log = logging.getLogger("cloud_data_discoverer")
WEEK = 7 * 24 * 3600.0


@dataclass
class RoundResult:
    dvp_error: str | None = None
    discovery_written: bool = False
    conditions: list[cond.Condition] = field(default_factory=list)
    orphans: list[orphans.OrphanedDisk] = field(default_factory=list)
    instance_types: list[instance_types.InstanceType] = field(default_factory=list)
    catalog_outcome: str | None = None  # guest.CREATED, UNCHANGED, ...; None: not tried this round
    catalog_left_out: list[catalog.LeftOut] = field(default_factory=list)
    write_error: str | None = None  # a guest write gave up on errors that may pass
    refused: str | None = None  # a guest write that cannot succeed as it is
    failed: str | None = None  # a phase broke (a bug): its data is stale
    skipped: list[Skipped] = field(default_factory=list)


class Discoverer:
    def __init__(self, dvp: Inventory, guest: Guest, metrics: m.Metrics, cluster_uuid: str,
                 quota_threshold: float = 0.9, orphan_min_age: float = 600.0,
                 now: Callable[[], datetime.datetime] = lambda: datetime.datetime.now(datetime.UTC),
                 vanished_grace: float = WEEK, scrub: errors.Scrub | None = None) -> None:
        self.dvp, self.guest, self.metrics, self.cluster_uuid = dvp, guest, metrics, cluster_uuid
        self.quota_threshold, self.orphan_min_age, self.now = quota_threshold, orphan_min_age, now
        self.vanished_grace = vanished_grace
        self.scrub = scrub or errors.Scrub()
        self.dvp_error: str | None = "no round yet"
        self.not_ready: str | None = "no round yet"
        self.write_error: str | None = None
        self.rounds = 0
        self.catalog_state: str | None = None  # the last catalog outcome, so a lasting one is logged once

    # health checks (dvp_common.runtime.HealthServer: None is fine, a string is the failure)
    def liveness(self) -> str | None:
        return self.write_error

    def readiness(self) -> str | None:
        return self.not_ready

    def run_once(self) -> RoundResult:
        result = RoundResult()
        self.rounds += 1
        self._guarded(result, m.CONDITIONS, self._conditions)
        if result.dvp_error is None:
            self._guarded(result, m.INSTANCE_TYPES, self._instance_types)
            self._guarded(result, m.DISCOVERY_DATA, self._discovery)
            self._guarded(result, m.DISKS_META, self._orphans)
        else:  # DVP did not answer the first read: nothing else is asked this round, every kind is stale
            for kind in (m.INSTANCE_TYPES, m.DISCOVERY_DATA, m.DISKS_META):
                self.metrics.request_error.labels(kind).set(1)
        self._guarded(result, m.CONDITIONS, self._write_conditions)
        for s in result.skipped:
            log.warning("skipped %s: %s", s.ref, s.reason)
        self.metrics.set_skipped(result.skipped)
        self.dvp_error, self.write_error = result.dvp_error, result.write_error
        self.not_ready = result.dvp_error or result.refused or result.failed
        self.metrics.update_error.set(1 if result.write_error or result.refused else 0)
        self.metrics.round_error.set(1 if self.not_ready or result.write_error else 0)
        return result

    def run(self, period: float, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self.run_once()
            except Exception as exc:  # noqa: BLE001 - one bad round must not end the loop
                self.not_ready = f"discovery round failed ({type(exc).__name__})"
                self.metrics.round_error.set(1)
                log.error("discovery round failed: %s", self.scrub(f"{type(exc).__name__}: {exc}"))
            stop.wait(period)

    def _guarded(self, result: RoundResult, kind: str, phase: Callable[[RoundResult], None]) -> None:
        """A phase that breaks (a bug, a shape nothing foresaw) fails alone: its kind is stale, the round is
        not ready, the other phases still run."""
        try:
            phase(result)
        except Exception as exc:  # noqa: BLE001 - see above
            self.metrics.request_error.labels(kind).set(1)
            result.failed = result.failed or f"{kind}: internal error ({type(exc).__name__})"
            log.error("%s: internal error: %s", kind, self.scrub(f"{type(exc).__name__}: {exc}"))

    def _dvp_failed(self, result: RoundResult, kind: str, exc: KubeError) -> str:
        self.metrics.request_error.labels(kind).set(1)
        text = self.scrub(exc)
        result.dvp_error = result.dvp_error or text
        log.error("DVP %s: %s", kind, text)
        return text

    def _conditions(self, result: RoundResult) -> None:
        try:
            quotas = self.dvp.quotas()
        except KubeError as exc:
            result.conditions = [cond.reachability(self._dvp_failed(result, m.CONDITIONS, exc), errors.code(exc))]
            return
        self.metrics.request_error.labels(m.CONDITIONS).set(0)
        quota_conditions, skipped = cond.quota_conditions(quotas, self.quota_threshold)
        result.skipped += skipped
        result.conditions = [cond.reachability(None), *quota_conditions]

    def _instance_types(self, result: RoundResult) -> None:
        try:
            classes = self.dvp.vm_classes()
        except KubeError as exc:
            self._dvp_failed(result, m.INSTANCE_TYPES, exc)
            return
        result.instance_types, skipped = instance_types.catalog(classes)
        result.skipped += skipped
        self.metrics.request_error.labels(m.INSTANCE_TYPES).set(0)
        self.metrics.set_instance_types(result.instance_types)
        self._catalog(result)

    def _catalog(self, result: RoundResult) -> None:
        entries, result.catalog_left_out = catalog.build(result.instance_types)
        what = f'{catalog.KIND} "{self.guest.catalog_name}"'
        try:
            result.catalog_outcome = self.guest.write_catalog(catalog.instance_types(entries))
        except WriteRefused as exc:
            result.refused = result.refused or self.scrub(exc)
            log.error("instance types: %s", self.scrub(exc))
            return
        except (KubeError, WriteGaveUp) as exc:
            result.write_error = result.write_error or self.scrub(exc)
            log.error("instance types: %s", self.scrub(exc))
            return
        if result.catalog_outcome in (g.CREATED, g.UPDATED):
            log.info("%s %s: %d instance types", what, result.catalog_outcome, len(entries))
            for out in result.catalog_left_out:
                log.info("%s: %s left out: %s", what, out.ref, out.reason)
        elif result.catalog_outcome != self.catalog_state and result.catalog_outcome == g.NOT_SERVED:
            log.info("%s: the guest does not serve the kind (node-manager absent): not published", what)
        elif result.catalog_outcome != self.catalog_state and result.catalog_outcome == g.FOREIGN:
            log.warning("%s exists without our labels: someone else's, left alone", what)
        self.catalog_state = result.catalog_outcome

    def _installer_data(self, result: RoundResult) -> dict | None:
        """The installer's data, sanitized; None when it is unusable (the Secret keeps its last good content)."""
        where = f'Secret "{self.guest.namespace}/{CLUSTER_CONFIGURATION}"'
        try:
            starting = discovery.parse(self.guest.starting_data())
        except discovery.InvalidDiscoveryData as exc:
            # Not ours to fix and no reason to restart: say so, keep the last good Secret.
            message = f"{where}: {exc}"
            result.conditions.append(cond.Condition(cond.DISCOVERY_DATA_VALID, False, message,
                                                    "the installer's data is unusable"))
            self.metrics.request_error.labels(m.DISCOVERY_DATA).set(1)
            log.error("discovery data: %s", message)
            return None
        starting, problems = discovery.sanitize(starting, shapes.INSTALLER_DATA, where)
        result.skipped += problems
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            result.conditions.append(cond.Condition(cond.DISCOVERY_DATA_VALID, False,
                                                    f"{where}: {problems[0].reason}{more}",
                                                    "the installer's data has invalid fields"))
        else:
            result.conditions.append(cond.Condition(cond.DISCOVERY_DATA_VALID, True, "the installer's data parses"))
        return starting

    def _discovery(self, result: RoundResult) -> None:
        try:
            classes = self.dvp.storage_classes()
        except KubeError as exc:
            self._dvp_failed(result, m.DISCOVERY_DATA, exc)
            return
        self.metrics.request_error.labels(m.DISCOVERY_DATA).set(0)
        entries, skipped = shapes.judge(shapes.STORAGE_CLASS, "StorageClass", classes,
                                        discovery.storage_class_entry)
        result.skipped += skipped
        # A class that is there but malformed this round is not "vanished": its entry stays as it was.
        present = {n for n in map(shapes.name_or_none, classes) if n}
        try:
            starting = self._installer_data(result)
            if starting is None:
                return
            last_text, vanished_text = self.guest.current_discovery()
            try:
                last = discovery.parse(last_text)
            except discovery.InvalidDiscoveryData:
                last = {}  # ours and broken (edited by hand?): rebuilt from the installer's data and DVP
            last, problems = discovery.sanitize(last, shapes.DISCOVERY_DATA,
                                                f'Secret "{self.guest.namespace}/{DISCOVERY_SECRET}"')
            result.skipped += problems
            previous, vanished = discovery.expire(discovery.base(starting, last), present,
                                                  discovery.parse_vanished(vanished_text), self.now(),
                                                  self.vanished_grace)
            text = discovery.render(discovery.merge(previous, entries))
            result.discovery_written = self.guest.write_discovery(text, discovery.render(vanished))
        except WriteRefused as exc:
            result.refused = self.scrub(exc)
            log.error("discovery data: %s", result.refused)
            return
        except (KubeError, WriteGaveUp) as exc:
            result.write_error = self.scrub(exc)
            log.error("discovery data: %s", result.write_error)
            return
        self.metrics.last_success.set(self.now().timestamp())
        if result.discovery_written:
            log.info("discovery data updated (%d DVP storage classes)", len(entries))

    def _orphans(self, result: RoundResult) -> None:
        try:
            disks, vms, bdas = self.dvp.our_disks(), self.dvp.vms(), self.dvp.attachments()
            pvs = self.guest.persistent_volumes()
        except KubeError as exc:
            self.metrics.request_error.labels(m.DISKS_META).set(1)
            log.error("orphaned disks: %s", self.scrub(exc))
            return
        self.metrics.request_error.labels(m.DISKS_META).set(0)
        referenced, unreadable = orphans.referenced_names(pvs, vms, bdas)
        found, skipped = orphans.find_orphans(disks, referenced, self.cluster_uuid, L.CLUSTER_UUID, L.COMPONENT,
                                              self.now(), self.orphan_min_age)
        result.skipped += unreadable + skipped
        if unreadable:  # a reference we could not read may be what keeps a disk in use: no verdict this round
            log.warning("orphaned disks: not judged this round (%d referencing objects malformed)", len(unreadable))
            return
        result.orphans = found
        self.metrics.set_orphans(found)

    def _write_conditions(self, result: RoundResult) -> None:
        self.metrics.set_conditions(result.conditions)
        try:
            self.guest.write_conditions(cond.render(result.conditions))
        except WriteRefused as exc:
            result.refused = result.refused or self.scrub(exc)
            log.error("cloud conditions: %s", self.scrub(exc))
        except (KubeError, WriteGaveUp) as exc:
            result.write_error = result.write_error or self.scrub(exc)
            log.error("cloud conditions: %s", self.scrub(exc))

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The orphan-attachment pass: reads this cluster's VMBDAs from DVP and the VolumeAttachments (and
PersistentVolumes) from the guest API, lets domain/orphans.py judge, deletes what it collects (by uid).

VMBDAs are read before the VolumeAttachments, so a VolumeAttachment made before the VMBDA listing is always
seen. Before a delete the volume's lock is taken (a Publish or Unpublish in flight on this controller makes the
collector leave it) and the VolumeAttachments are read once more: one made during the grace period, or since the
first read, keeps its VMBDA.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable

from dvp_common.kube import Conflict, KubeClient
from dvp_common.kube.resources import PERSISTENT_VOLUME, VOLUME_ATTACHMENT

from .access import Dvp
from .domain import orphans
from .domain.errors import CsiError
from .locks import TryLocks

log = logging.getLogger(__name__)


class OrphanCollector:
    def __init__(self, dvp: Dvp, guest: KubeClient, locks: TryLocks, grace: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.dvp, self.guest, self.locks, self.grace, self.clock = dvp, guest, locks, grace, clock
        self.seen: dict[str, float] = {}
        self.pending: list[dict] = []  # orphaned and within the grace period, as of the last pass

    def _wanted(self) -> frozenset[str]:
        return orphans.wanted_volumes(self.guest.list_all(VOLUME_ATTACHMENT).items,
                                      self.guest.list_all(PERSISTENT_VOLUME).items)

    def collect(self) -> list[str]:
        """One pass; returns the VMBDA names deleted."""
        vmbdas = self.dvp.attachments.list()
        verdict = orphans.judge(vmbdas, self._wanted(), self.seen, self.clock(), self.grace, self.dvp.cluster_uuid)
        self.seen, self.pending = verdict.seen, list(verdict.pending)
        if not verdict.collect:
            return []
        removed = []
        with contextlib.ExitStack() as held:
            candidates = []
            for att in verdict.collect:
                try:
                    held.enter_context(self.locks.hold(f"volume/{orphans.disk_of(att)}"))
                except CsiError:
                    continue  # a Publish or Unpublish of that volume is running: it decides, not us
                candidates.append(att)
            wanted = self._wanted()
            for att in candidates:
                name, disk = att["metadata"]["name"], orphans.disk_of(att)
                if disk in wanted:
                    log.info("%s: a VolumeAttachment of volume %s appeared; kept", name, disk)
                    self.seen.pop(att["metadata"]["uid"], None)
                    continue
                log.info("detaching %s: no VolumeAttachment has wanted volume %s for %gs", name, disk, self.grace)
                try:
                    if self.dvp.attachments.delete(name, att):  # the one read, by uid
                        removed.append(name)
                except Conflict:
                    log.info("%s was replaced since it was read; left alone", name)
        return removed

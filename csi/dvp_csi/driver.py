# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Assembles the services of one process from settings, a DVP API and the OS layer."""

from __future__ import annotations

import datetime
import logging
import threading
from dataclasses import dataclass

from dvp_common.kube import KubeClient, KubeError

from . import metrics
from .access import Dvp
from .attachments import Attachments
from .controller import ControllerServicer
from .domain import disks
from .domain.errors import CsiError
from .guest_proofs import GuestProofs
from .identity import IdentityServicer
from .locks import TryLocks
from .modify import Modifications
from .node import NodeServicer
from .observe import Observer
from .orphans import OrphanCollector
from .os_ops import OsOps
from .quotas import QuotaWatch
from .settings import Settings
from .snapshots import Snapshots
from .volumes import Volumes

log = logging.getLogger(__name__)


@dataclass
class Driver:
    settings: Settings
    identity: IdentityServicer
    controller: ControllerServicer | None
    node: NodeServicer | None
    attachments: Attachments | None
    orphans: OrphanCollector | None = None
    observer: Observer | None = None

    def reap_once(self) -> None:
        """One pass: detach volumes of VMs that no longer run, then VMBDAs no VolumeAttachment wants; then report
        pending attachments and volume health as metrics."""
        assert self.attachments is not None
        try:
            metrics.DEAD_VM_DETACHES.inc(len(self.attachments.reap_dead_vms()))
        except KubeError as exc:
            log.warning("dead-VM detach pass failed: %s", exc)
        if self.orphans is not None:
            try:
                metrics.ORPHAN_DETACHES.inc(len(self.orphans.collect()))
            except KubeError as exc:
                log.warning("orphan attachment pass failed: %s", exc)
            metrics.ORPHANS_PENDING.set(len(self.orphans.pending))
        if self.observer is None:
            return
        try:
            self.observer.observe(datetime.datetime.now(datetime.UTC))
        except KubeError as exc:
            log.warning("reading attachments and volume health failed: %s", exc)

    def start_reaper(self, stop: threading.Event) -> threading.Thread | None:
        """Controller: periodic passes of reap_once (a dead VM or a forgotten attachment must not pin a volume)."""
        interval = self.settings.dead_vm_reap_interval
        if self.attachments is None or interval <= 0:
            return None

        def loop() -> None:
            while not stop.wait(interval):
                self.reap_once()

        t = threading.Thread(target=loop, name="dead-vm-reaper", daemon=True)
        t.start()
        return t

    def close(self) -> None:
        """Stop the background watches and wait (bounded) for them to end."""
        if self.controller is not None:
            self.controller.quotas.close()
            cache = self.controller.volumes.dvp.proof_cache
            if cache is not None:
                cache.close()


def build(settings: Settings, dvp: Dvp | None, os_ops: OsOps | None = None,
          guest: KubeClient | None = None) -> Driver:
    """`guest`: the guest API, for the orphan-attachment pass and the proofs of adoption (none: neither)."""
    locks = TryLocks()
    controller = attachments = orphans = observer = None
    if settings.controller:
        if dvp is None:
            raise ValueError("controller mode needs DVP access")
        if guest is not None and dvp.guest is None:
            dvp.guest = guest  # PersistentVolumes and Nodes prove the upstream objects adopted
        if dvp.guest is not None and dvp.proof_cache is None:
            dvp.proof_cache = GuestProofs(dvp.guest)
        dvp.on_adopt = lambda kind: metrics.ADOPTIONS.labels(kind=kind).inc()
        attachments, observer = Attachments(dvp, settings), Observer(dvp)
        quotas = QuotaWatch(dvp)
        controller = ControllerServicer(Volumes(dvp, settings, quotas.check_room), attachments,
                                        Snapshots(dvp, settings), locks, Modifications(dvp, settings), quotas)
        if guest is not None and settings.orphan_attachment_grace > 0:
            orphans = OrphanCollector(dvp, guest, locks, settings.orphan_attachment_grace)
    node = None
    if settings.node:
        node = NodeServicer(settings, os_ops or OsOps(), locks, _static_disks(dvp, settings) if dvp else None)
    return Driver(settings, IdentityServicer(settings, dvp.ping if dvp else None), controller, node, attachments,
                  orphans, observer)


def _static_disks(dvp: Dvp, settings: Settings):
    def count() -> int | None:
        try:
            vm = dvp.vm_of_node(settings.node_name)
        except (KubeError, CsiError) as exc:
            log.warning("cannot read the VirtualMachine of node %s: %s", settings.node_name, exc)
            return None
        return disks.static_disk_count(vm) if vm is not None else None

    return count

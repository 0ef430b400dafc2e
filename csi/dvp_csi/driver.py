# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Assembles the services of one process from settings, a DVP API and the OS layer."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from dvp_common.kube import KubeError

from . import metrics
from .access import Dvp
from .attachments import Attachments
from .controller import ControllerServicer
from .domain import disks
from .domain.errors import CsiError
from .identity import IdentityServicer
from .locks import TryLocks
from .modify import Modifications
from .node import NodeServicer
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

    def start_reaper(self, stop: threading.Event) -> threading.Thread | None:
        """Controller: periodically detach volumes of VMs that no longer run (a dead VM must not pin a volume)."""
        interval = self.settings.dead_vm_reap_interval
        if self.attachments is None or interval <= 0:
            return None

        def loop() -> None:
            while not stop.wait(interval):
                try:
                    metrics.DEAD_VM_DETACHES.inc(len(self.attachments.reap_dead_vms()))
                except KubeError as exc:
                    log.warning("dead-VM detach pass failed: %s", exc)

        t = threading.Thread(target=loop, name="dead-vm-reaper", daemon=True)
        t.start()
        return t

    def close(self) -> None:
        """Stop the background watches (the quota informer ends with its current watch)."""
        if self.controller is not None:
            self.controller.quotas.close()


def build(settings: Settings, dvp: Dvp | None, os_ops: OsOps | None = None) -> Driver:
    locks = TryLocks()
    controller = attachments = None
    if settings.controller:
        if dvp is None:
            raise ValueError("controller mode needs DVP access")
        attachments = Attachments(dvp, settings)
        quotas = QuotaWatch(dvp)
        controller = ControllerServicer(Volumes(dvp, settings, quotas.check_room), attachments,
                                        Snapshots(dvp, settings), locks, Modifications(dvp, settings), quotas)
    node = None
    if settings.node:
        node = NodeServicer(settings, os_ops or OsOps(), locks, _static_disks(dvp, settings) if dvp else None)
    return Driver(settings, IdentityServicer(settings, dvp.ping if dvp else None), controller, node, attachments)


def _static_disks(dvp: Dvp, settings: Settings):
    def count() -> int | None:
        try:
            vm = dvp.vm_of_node(settings.node_name)
        except (KubeError, CsiError) as exc:
            log.warning("cannot read the VirtualMachine of node %s: %s", settings.node_name, exc)
            return None
        return disks.static_disk_count(vm) if vm is not None else None

    return count

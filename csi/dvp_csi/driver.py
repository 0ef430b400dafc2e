# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Assembles the services of one process from settings, a DVP API and the OS layer."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from . import metrics
from .attachments import Attachments
from .controller import ControllerServicer
from .domain import disks, labels
from .dvp.port import DvpApi, DvpError, Kind
from .identity import IdentityServicer
from .locks import TryLocks
from .lookup import Lookup
from .node import NodeServicer
from .os_ops import OsOps
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
                except DvpError as exc:
                    log.warning("dead-VM detach pass failed: %s", exc)

        t = threading.Thread(target=loop, name="dead-vm-reaper", daemon=True)
        t.start()
        return t


def build(settings: Settings, api: DvpApi | None, os_ops: OsOps | None = None) -> Driver:
    locks = TryLocks()
    controller = attachments = None
    if settings.controller:
        if api is None:
            raise ValueError("controller mode needs DVP access")
        lookup = Lookup(api, settings.cluster_uuid)
        attachments = Attachments(lookup, settings)
        controller = ControllerServicer(Volumes(lookup, settings), attachments, Snapshots(lookup, settings), locks)
    node = None
    if settings.node:
        node = NodeServicer(settings, os_ops or OsOps(), locks, _static_disks(api, settings) if api else None)
    return Driver(settings, IdentityServicer(settings, api.ping if api else None), controller, node, attachments)


def _static_disks(api: DvpApi, settings: Settings):
    def count() -> int | None:
        try:
            sel = {labels.HOSTNAME: settings.node_name}
            if settings.cluster_uuid:
                sel[labels.CLUSTER_UUID] = settings.cluster_uuid
            vms = api.list(Kind.VIRTUAL_MACHINE, sel)
        except DvpError as exc:
            log.warning("cannot read the VirtualMachine of node %s: %s", settings.node_name, exc)
            return None
        return disks.static_disk_count(vms[0]) if len(vms) == 1 else None

    return count

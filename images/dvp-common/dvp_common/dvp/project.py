# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every kind of the DVP project as one component sees it, over one connection (a cached client or not)."""

from __future__ import annotations

from .attachments import Attachments
from .classes import VirtualMachineClasses
from .cloudinit import CloudInitSecrets
from .connection import DVPConnection
from .disks import VirtualDisks
from .images import BOOT_SOURCE_KINDS, Images
from .ipaddresses import IPAddresses
from .operations import Operations
from .vms import VirtualMachines


class Project:
    def __init__(self, conn: DVPConnection, component: str, owners: frozenset[str] | None = None,
                 image_kinds: tuple[str, ...] = BOOT_SOURCE_KINDS) -> None:
        """`owners`: whose objects count as ours for every kind (None: each kind's default)."""
        self.conn, self.component = conn, component
        self.vms = VirtualMachines(conn, component, owners)
        self.disks = VirtualDisks(conn, component, owners)
        self.attachments = Attachments(conn, component, owners)
        self.operations = Operations(conn, component, owners)
        self.cloud_init = CloudInitSecrets(conn, component, owners)
        self.ip_addresses = IPAddresses(conn, component, owners)
        self.classes = VirtualMachineClasses(conn)
        self.images = Images(conn, image_kinds)

    @property
    def namespace(self) -> str:
        return self.conn.namespace

    @property
    def cluster_uuid(self) -> str:
        return self.conn.cluster_uuid

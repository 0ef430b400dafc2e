# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A read-only view of the project for discovery, over the typed kinds: classes, storage classes, the cluster's
disks, every VM and attachment, quotas. Each read has a total deadline (seconds, all pages and retries), so a slow
DVP cannot hold a discovery round."""

from __future__ import annotations

from . import labels as L
from .attachments import Attachments
from .classes import VirtualMachineClasses
from .connection import DVPConnection
from .disks import VirtualDisks
from .objects import Obj
from .resources import RESOURCE_QUOTA
from .storageclasses import StorageClasses
from .vms import VirtualMachines


class Inventory:
    def __init__(self, conn: DVPConnection, deadline: float = 60.0) -> None:
        self.conn, self.deadline = conn, deadline
        self._classes, self._storage = VirtualMachineClasses(conn), StorageClasses(conn)
        # No component: nothing here is changed, and foreign objects are read on purpose (they count against
        # capacity, or show whose disks an attachment holds).
        self._disks, self._vms, self._bdas = VirtualDisks(conn), VirtualMachines(conn), Attachments(conn)

    def storage_classes(self) -> list[Obj]:
        return self._storage.list(self.deadline)

    def vm_classes(self) -> list[Obj]:
        return self._classes.list(self.deadline)

    def our_disks(self) -> list[Obj]:
        """Disks of this cluster, whichever component made them."""
        return self._disks.list({L.CLUSTER_UUID: self.conn.cluster_uuid}, ours=False, deadline=self.deadline)

    def vms(self) -> list[Obj]:
        return self._vms.list(ours=False, deadline=self.deadline)

    def attachments(self) -> list[Obj]:
        return self._bdas.list(ours=False, deadline=self.deadline)

    def quotas(self) -> list[Obj]:
        return self.conn.client.list_all(RESOURCE_QUOTA, self.conn.namespace, deadline=self.deadline).items

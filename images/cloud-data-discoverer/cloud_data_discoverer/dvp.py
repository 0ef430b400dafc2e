# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP side: only reads (StorageClasses, VirtualMachineClasses, our disks, VMs, attachments, quotas)."""

from __future__ import annotations

from typing import Any

from dvp_common.dvp import DVPConnection
from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_DISK, VIRTUAL_MACHINE, VIRTUAL_MACHINE_CLASS, VMBDA
from dvp_common.kube import Resource
from dvp_common.kube.resources import STORAGE_CLASS

RESOURCE_QUOTA = Resource("", "v1", "resourcequotas", "ResourceQuota")


class DVPReader:
    def __init__(self, conn: DVPConnection) -> None:
        self.conn = conn

    def storage_classes(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(STORAGE_CLASS).items

    def vm_classes(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(VIRTUAL_MACHINE_CLASS).items

    def our_disks(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(VIRTUAL_DISK, self.conn.namespace,
                                         label_selector={L.CLUSTER_UUID: self.conn.cluster_uuid}).items

    def vms(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(VIRTUAL_MACHINE, self.conn.namespace).items

    def attachments(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(VMBDA, self.conn.namespace).items

    def quotas(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(RESOURCE_QUOTA, self.conn.namespace).items

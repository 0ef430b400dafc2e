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
    """Each read has a total deadline (seconds, all pages and retries): a slow DVP cannot hold a round."""

    def __init__(self, conn: DVPConnection, deadline: float = 60.0) -> None:
        self.conn, self.deadline = conn, deadline

    def storage_classes(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(STORAGE_CLASS, deadline=self.deadline).items

    def vm_classes(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(VIRTUAL_MACHINE_CLASS, deadline=self.deadline).items

    def our_disks(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(VIRTUAL_DISK, self.conn.namespace,
                                         label_selector={L.CLUSTER_UUID: self.conn.cluster_uuid},
                                         deadline=self.deadline).items

    def vms(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(VIRTUAL_MACHINE, self.conn.namespace, deadline=self.deadline).items

    def attachments(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(VMBDA, self.conn.namespace, deadline=self.deadline).items

    def quotas(self) -> list[dict[str, Any]]:
        return self.conn.client.list_all(RESOURCE_QUOTA, self.conn.namespace, deadline=self.deadline).items

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The driver's DVP objects: dvp_common.dvp's typed kinds on one connection, and the lookups every path shares.

Writes go through the kinds, which check ownership and carry the uid of the object the caller read and judged as
a precondition, so a same-named object made in between is never touched. Lookups apply the ownership rule once:
a foreign disk reads as absent (a guest must not learn about others), or PermissionDenied where the path would
change it.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from dvp_common.dvp import (
    Attachments,
    DVPConnection,
    Snapshots,
    StorageClasses,
    VirtualDisks,
    VirtualMachines,
)
from dvp_common.dvp import labels as L
from dvp_common.dvp.objects import Obj
from dvp_common.dvp.resources import VIRTUAL_DISK
from dvp_common.kube import KubeClient
from dvp_common.kube.metrics import RequestMetrics

from .domain import disks
from .domain.errors import CsiError, not_found


@dataclass
class Dvp:
    conn: DVPConnection
    disks: VirtualDisks
    attachments: Attachments
    snapshots: Snapshots
    vms: VirtualMachines
    storage_classes: StorageClasses

    @classmethod
    def over(cls, client: KubeClient, namespace: str, cluster_uuid: str) -> Dvp:
        conn = DVPConnection(client, namespace, cluster_uuid)
        return cls(conn, VirtualDisks(conn, L.CSI, adoptable=True), Attachments(conn, L.CSI), Snapshots(conn, L.CSI),
                   VirtualMachines(conn, L.CSI), StorageClasses(conn))

    @classmethod
    def from_kubeconfig(cls, kubeconfig_base64: str, namespace: str, cluster_uuid: str,
                        metrics: RequestMetrics | None = None) -> Dvp:
        """`kubeconfig_base64`: DVP_KUBERNETES_CONFIG_BASE64 as the pod gets it (the one kubeconfig rule judges it);
        `metrics`: where the DVP requests are counted and timed (by verb and resource)."""
        from dvp_common.kube import config as kube_config

        creds = kube_config.from_kubeconfig_base64(kubeconfig_base64)
        return cls.over(KubeClient.from_credentials(creds, metrics=metrics), namespace, cluster_uuid)

    @property
    def cluster_uuid(self) -> str:
        return self.conn.cluster_uuid

    def ping(self) -> None:
        self.conn.client.list(VIRTUAL_DISK, self.conn.namespace, limit=1)

    # -- lookups ----------------------------------------------------------------------------------------------
    def volume(self, volume_id: str) -> Obj:
        """The disk of a volume; a missing or foreign disk is NotFound."""
        disk = self.disks.get_or_none(volume_id)
        if disk is None or not self.disks.is_ours(disk):
            raise not_found(f"volume {volume_id}: no VirtualDisk of this cluster's CSI volumes has that name")
        return disk

    def volume_or_none(self, volume_id: str, denied: str) -> Obj | None:
        """None when missing; PermissionDenied for a foreign disk (paths that change it, e.g. DeleteVolume)."""
        disk = self.disks.get_or_none(volume_id)
        if disk is not None and not self.disks.is_ours(disk):
            raise CsiError(grpc.StatusCode.PERMISSION_DENIED,
                           f"VirtualDisk {volume_id} is not a CSI volume of this cluster; refusing to {denied} it")
        return disk

    def snapshot(self, snapshot_id: str) -> Obj:
        vds = self.snapshots.get_or_none(snapshot_id)
        if vds is None or not self.snapshots.is_ours(vds):
            raise not_found(f"snapshot {snapshot_id}: no VirtualDiskSnapshot of this cluster has that name")
        return vds

    def vm_of_node(self, node_id: str) -> Obj | None:
        """The VM of a guest node: found by hostname label, only among this cluster's node VMs."""
        vms = self.vms.list({L.HOSTNAME: node_id})
        if len(vms) > 1:
            names = ", ".join(sorted(v["metadata"]["name"] for v in vms))
            raise CsiError(grpc.StatusCode.FAILED_PRECONDITION, f"node {node_id}: several VirtualMachines ({names})")
        return vms[0] if vms else None

    def vm_alive(self, vm_name: str) -> bool:
        """Read only: any VM of that name that runs counts as alive, so nothing is detached on a doubt."""
        return disks.vm_alive(self.vms.get_or_none(vm_name))

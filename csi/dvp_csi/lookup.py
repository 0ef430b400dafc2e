# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Finding our DVP objects: every path goes through here, so the ownership rule is applied once."""

from __future__ import annotations

import grpc

from .domain import disks, labels, ownership
from .domain.errors import CsiError, not_found
from .dvp.port import DvpApi, Kind, Obj


class Lookup:
    def __init__(self, api: DvpApi, cluster_uuid: str) -> None:
        self.api = api
        self.cluster_uuid = cluster_uuid

    def volume(self, volume_id: str) -> Obj:
        """The disk of a volume; a missing or foreign disk is NotFound (a guest must not learn about others)."""
        disk = self.api.get(Kind.VIRTUAL_DISK, volume_id)
        if disk is None or not ownership.is_usable_volume(disk, self.cluster_uuid):
            raise not_found(f"volume {volume_id}: no VirtualDisk of this cluster's CSI volumes has that name")
        return disk

    def volume_or_none(self, volume_id: str, denied: str) -> Obj | None:
        """None when missing; PermissionDenied for a foreign disk (paths that change it, e.g. DeleteVolume)."""
        disk = self.api.get(Kind.VIRTUAL_DISK, volume_id)
        if disk is not None and not ownership.is_usable_volume(disk, self.cluster_uuid):
            raise CsiError(grpc.StatusCode.PERMISSION_DENIED,
                           f"VirtualDisk {volume_id} is not a CSI volume of this cluster; refusing to {denied} it")
        return disk

    def snapshot(self, snapshot_id: str) -> Obj:
        vds = self.api.get(Kind.VIRTUAL_DISK_SNAPSHOT, snapshot_id)
        if vds is None or not ownership.is_ours(vds, self.cluster_uuid):
            raise not_found(f"snapshot {snapshot_id}: no VirtualDiskSnapshot of this cluster has that name")
        return vds

    def vm_of_node(self, node_id: str) -> Obj | None:
        """The VM of a guest node: found by hostname label, and only among this cluster's VMs."""
        vms = self.api.list(Kind.VIRTUAL_MACHINE, {labels.HOSTNAME: node_id, labels.CLUSTER_UUID: self.cluster_uuid})
        if len(vms) > 1:
            names = ", ".join(sorted(v["metadata"]["name"] for v in vms))
            raise CsiError(grpc.StatusCode.FAILED_PRECONDITION, f"node {node_id}: several VirtualMachines ({names})")
        return vms[0] if vms else None

    def attachments(self, disk: str) -> list[Obj]:
        """Our VMBDAs of a disk (machine-disk VMBDAs made by capdvp carry another component label)."""
        sel = {**ownership.owned_selector(self.cluster_uuid), labels.VMBDA_DISK: disk}
        return self.api.list(Kind.VMBDA, sel)

    def vm_alive(self, vm_name: str) -> bool:
        return disks.vm_alive(self.api.get(Kind.VIRTUAL_MACHINE, vm_name))

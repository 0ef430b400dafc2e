# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CreateSnapshot, DeleteSnapshot and ListSnapshots through VirtualDiskSnapshots."""

from __future__ import annotations

from collections.abc import Mapping

import grpc

from .domain import disks, labels, names, ownership
from .domain.errors import CsiError
from .dvp import objects
from .dvp.port import DvpAlreadyExists, DvpQuotaExceeded, Kind, Obj
from .lookup import Lookup
from .settings import Settings
from .volumes import paginate

CONSISTENCY_PARAM = "requiredConsistency"


class Snapshots:
    def __init__(self, lookup: Lookup, settings: Settings) -> None:
        self.lookup = lookup
        self.api = lookup.api
        self.s = settings

    def create(self, csi_name: str, source_volume_id: str, params: Mapping[str, str]) -> Obj:
        consistent = params.get(CONSISTENCY_PARAM, "false").lower()
        if consistent not in ("true", "false"):
            raise CsiError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"snapshot {csi_name}: parameters.{CONSISTENCY_PARAM} must be true or false")
        name = names.object_name(csi_name, "snapshot")
        existing = self.api.get(Kind.VIRTUAL_DISK_SNAPSHOT, name)
        if existing is not None:
            self._check_same(existing, csi_name, source_volume_id)
            return existing
        disk = self.lookup.volume(source_volume_id)
        body = objects.snapshot(name, self.s.namespace, self.s.cluster_uuid, csi_name, source_volume_id,
                                disks.disk_capacity(disk), consistent == "true")
        try:
            vds = self.api.create(Kind.VIRTUAL_DISK_SNAPSHOT, body)
        except DvpAlreadyExists:
            vds = self.api.get(Kind.VIRTUAL_DISK_SNAPSHOT, name) or body
            self._check_same(vds, csi_name, source_volume_id)
        except DvpQuotaExceeded as exc:
            raise CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"VirtualDiskSnapshot {name}: {exc}") from exc
        if disks.phase(vds) == "Failed":
            raise CsiError(grpc.StatusCode.INTERNAL, f"VirtualDiskSnapshot {name} failed")
        return vds

    def _check_same(self, vds: Obj, csi_name: str, source_volume_id: str) -> None:
        name = vds["metadata"]["name"]
        if not ownership.is_ours(vds, self.s.cluster_uuid):
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"VirtualDiskSnapshot {name} exists and is not a snapshot of this cluster")
        src = (vds.get("spec") or {}).get("virtualDiskName")
        if src != source_volume_id:
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"snapshot {csi_name} already exists for another volume ({src})")

    def delete(self, snapshot_id: str) -> None:
        vds = self.api.get(Kind.VIRTUAL_DISK_SNAPSHOT, snapshot_id)
        if vds is None:
            return
        if not ownership.is_ours(vds, self.s.cluster_uuid):
            raise CsiError(grpc.StatusCode.PERMISSION_DENIED,
                           f"VirtualDiskSnapshot {snapshot_id} is not a snapshot of this cluster; refusing to delete")
        self.api.delete(Kind.VIRTUAL_DISK_SNAPSHOT, snapshot_id)

    def list(self, snapshot_id: str, source_volume_id: str, starting_token: str,
             max_entries: int) -> tuple[list[Obj], str]:
        if snapshot_id:
            vds = self.api.get(Kind.VIRTUAL_DISK_SNAPSHOT, snapshot_id)
            found = [vds] if vds is not None and ownership.is_ours(vds, self.s.cluster_uuid) else []
        else:
            sel = ownership.owned_selector(self.s.cluster_uuid)
            if source_volume_id:
                sel[labels.VIRTUAL_DISK_NAME] = source_volume_id
            found = self.api.list(Kind.VIRTUAL_DISK_SNAPSHOT, sel)
        # clone intermediates are internal, never user snapshots
        found = [v for v in found if objects.CLONE_FOR_LABEL not in (v["metadata"].get("labels") or {})]
        found.sort(key=lambda v: v["metadata"]["name"])
        return paginate(found, starting_token, max_entries, "ListSnapshots")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CreateSnapshot, DeleteSnapshot and ListSnapshots through VirtualDiskSnapshots."""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from dvp_common.dvp import NotOurs, disk_state, state
from dvp_common.dvp.objects import Obj

from .access import Dvp
from .domain import labels, names
from .domain.errors import CsiError
from .settings import Settings
from .volumes import paginate

CONSISTENCY_PARAM = "requiredConsistency"


class Snapshots:
    def __init__(self, dvp: Dvp, settings: Settings) -> None:
        self.dvp = dvp
        self.s = settings

    def create(self, csi_name: str, source_volume_id: str, params: Mapping[str, str]) -> Obj:
        consistent = params.get(CONSISTENCY_PARAM, "false").lower()
        if consistent not in ("true", "false"):
            raise CsiError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"snapshot {csi_name}: parameters.{CONSISTENCY_PARAM} must be true or false")
        name = names.object_name(csi_name, "snapshot")
        existing = self.dvp.snapshots.get_or_none(name)
        if existing is not None:
            self._check_same(existing, csi_name, source_volume_id)
            return existing
        disk = self.dvp.volume(source_volume_id)
        body = self.dvp.snapshots.new(name, source_volume_id, consistent == "true", annotations={
            labels.CSI_NAME_ANNOTATION: csi_name, labels.SIZE_ANNOTATION: str(disk_state.capacity_bytes(disk))})
        try:
            vds = self.dvp.snapshots.create(body)  # an existing one of ours is answered as it is
        except NotOurs as exc:
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"VirtualDiskSnapshot {name} exists and is not a snapshot of this cluster") from exc
        self._check_same(vds, csi_name, source_volume_id)
        if state.phase(vds) == "Failed":
            raise CsiError(grpc.StatusCode.INTERNAL, f"VirtualDiskSnapshot {name} failed")
        return vds

    def _check_same(self, vds: Obj, csi_name: str, source_volume_id: str) -> None:
        name = vds["metadata"]["name"]
        if not self.dvp.snapshots.is_ours(vds):
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"VirtualDiskSnapshot {name} exists and is not a snapshot of this cluster")
        src = (vds.get("spec") or {}).get("virtualDiskName")
        if src != source_volume_id:
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"snapshot {csi_name} already exists for another volume ({src})")

    def delete(self, snapshot_id: str) -> None:
        vds = self.dvp.snapshots.get_or_none(snapshot_id)
        if vds is None:
            return
        if not self.dvp.snapshots.is_ours(vds):
            raise CsiError(grpc.StatusCode.PERMISSION_DENIED,
                           f"VirtualDiskSnapshot {snapshot_id} is not a snapshot of this cluster; refusing to delete")
        self.dvp.snapshots.delete(snapshot_id, vds)  # the snapshot judged above, by uid

    def list(self, snapshot_id: str, source_volume_id: str, starting_token: str,
             max_entries: int) -> tuple[list[Obj], str]:
        if snapshot_id:
            vds = self.dvp.snapshots.get_or_none(snapshot_id)
            found = [vds] if vds is not None and self.dvp.snapshots.is_ours(vds) else []
        elif source_volume_id:
            found = self.dvp.snapshots.of_disk(source_volume_id)
        else:
            found = self.dvp.snapshots.list()
        # clone intermediates are internal, never user snapshots
        found = [v for v in found if labels.CLONE_FOR_LABEL not in (v["metadata"].get("labels") or {})]
        found.sort(key=lambda v: v["metadata"]["name"])
        return paginate(found, starting_token, max_entries, "ListSnapshots")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CreateVolume, DeleteVolume, ControllerExpandVolume and ListVolumes over VirtualDisks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import grpc
from dvp_common.quantity import format_bytes

from .domain import disks, labels, names, ownership
from .domain.capacity import Range, choose_size, fits
from .domain.errors import CsiError, invalid
from .dvp import objects
from .dvp.port import DvpAlreadyExists, DvpQuotaExceeded, Kind, Obj, WaitTimeout
from .lookup import Lookup
from .settings import Settings

STORAGE_CLASS_PARAM = "dvpStorageClass"
SNAPSHOT = "VirtualDiskSnapshot"


@dataclass(frozen=True)
class Source:
    kind: str  # "snapshot" | "volume"
    id: str


def paginate(items: list, starting_token: str, max_entries: int, what: str) -> tuple[list, str]:
    if max_entries < 0:
        raise invalid(f"{what}: max_entries must not be negative")
    start = 0
    if starting_token:
        if not starting_token.isdigit() or int(starting_token) > len(items):
            raise CsiError(grpc.StatusCode.ABORTED, f"{what}: starting_token {starting_token!r} is not valid")
        start = int(starting_token)
    end = len(items) if not max_entries else min(len(items), start + max_entries)
    return items[start:end], (str(end) if end < len(items) else "")


class Volumes:
    def __init__(self, lookup: Lookup, settings: Settings) -> None:
        self.lookup = lookup
        self.api = lookup.api
        self.s = settings

    # -- create ---------------------------------------------------------------------------------------------
    def create(self, csi_name: str, params: Mapping[str, str], rng: Range, source: Source | None,
               timeout: float) -> tuple[Obj, int]:
        storage_class = params.get(STORAGE_CLASS_PARAM, "")
        if not storage_class:
            raise invalid(f"volume {csi_name}: parameters.{STORAGE_CLASS_PARAM} is required")
        name = names.object_name(csi_name, "pvc")
        data_source, source_size = self._data_source(name, source, timeout)
        size = choose_size(rng, default=self.s.default_size) if (rng.required or not source_size) else source_size
        if rng.limit and size > rng.limit:
            raise CsiError(grpc.StatusCode.OUT_OF_RANGE, f"volume {csi_name}: {size} bytes is above limit_bytes")
        if source_size and size < source_size:
            raise CsiError(grpc.StatusCode.OUT_OF_RANGE,
                           f"volume {csi_name}: {size} bytes is smaller than its source ({source_size} bytes)")
        disk = self.api.get(Kind.VIRTUAL_DISK, name)
        if disk is None:
            body = objects.virtual_disk(name, self.s.namespace, self.s.cluster_uuid, csi_name, storage_class, size,
                                        data_source)
            try:
                disk = self.api.create(Kind.VIRTUAL_DISK, body)
            except DvpAlreadyExists:
                disk = self.api.get(Kind.VIRTUAL_DISK, name) or body
            except DvpQuotaExceeded as exc:
                raise CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"VirtualDisk {name}: {exc}") from exc
        self._check_same(disk, csi_name, storage_class, data_source, rng)
        disk = self._wait_ready(name, timeout)
        return disk, disks.disk_capacity(disk) or size

    def _check_same(self, disk: Obj, csi_name: str, storage_class: str, source: tuple[str, str] | None,
                    rng: Range) -> None:
        name = disk["metadata"]["name"]
        if not ownership.is_ours(disk, self.s.cluster_uuid):
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"VirtualDisk {name} exists and is not a CSI volume of this cluster")
        differs = []
        if disks.disk_storage_class(disk) != storage_class:
            differs.append(f"{STORAGE_CLASS_PARAM} {disks.disk_storage_class(disk)!r}")
        if disks.disk_source(disk) != source:
            differs.append(f"content source {disks.disk_source(disk)}")
        cap = disks.disk_capacity(disk)
        if rng != Range() and not fits(cap, rng):
            differs.append(f"capacity {cap}")
        if differs:
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"volume {csi_name} already exists with different {', '.join(differs)}")

    def _wait_ready(self, name: str, timeout: float) -> Obj:
        def done(d: Obj | None) -> bool:
            return d is None or disks.disk_ready(d) or disks.disk_failure(d) is not None

        try:
            disk = self.api.wait(Kind.VIRTUAL_DISK, name, done, min(timeout, self.s.timeouts.create))
        except WaitTimeout as exc:
            raise CsiError(grpc.StatusCode.DEADLINE_EXCEEDED,
                           f"VirtualDisk {name} is not ready yet (phase {disks.phase(exc.last)!r})") from exc
        if disk is None:
            raise CsiError(grpc.StatusCode.ABORTED, f"VirtualDisk {name} was deleted while being created")
        failure = disks.disk_failure(disk)
        if failure:
            raise failure
        return disk

    def _data_source(self, name: str, source: Source | None, timeout: float) -> tuple[tuple[str, str] | None, int]:
        if source is None:
            return None, 0
        if source.kind == "snapshot":
            vds = self.lookup.snapshot(source.id)
            return (SNAPSHOT, vds["metadata"]["name"]), objects.snapshot_size(vds)
        # A clone: DVP disks are made from snapshots, so snapshot the source first and keep that snapshot until
        # the clone is deleted (a WaitForFirstConsumer disk reads it only when first used).
        src = self.lookup.volume(source.id)
        snap = names.clone_snapshot_name(name)
        size = disks.disk_capacity(src)
        if self.api.get(Kind.VIRTUAL_DISK_SNAPSHOT, snap) is None:
            body = objects.snapshot(snap, self.s.namespace, self.s.cluster_uuid, "", src["metadata"]["name"], size,
                                    consistent=False, clone_for=name)
            try:
                self.api.create(Kind.VIRTUAL_DISK_SNAPSHOT, body)
            except DvpAlreadyExists:
                pass
            except DvpQuotaExceeded as exc:
                raise CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"VirtualDiskSnapshot {snap}: {exc}") from exc
        return (SNAPSHOT, snap), size

    # -- delete ---------------------------------------------------------------------------------------------
    def delete(self, volume_id: str, timeout: float) -> None:
        disk = self.lookup.volume_or_none(volume_id, "delete")
        if disk is not None:
            on = disks.disk_attached_vms(disk)
            if on or self.lookup.attachments(volume_id):
                where = ", ".join(on) or "a VirtualMachineBlockDeviceAttachment"
                raise CsiError(grpc.StatusCode.FAILED_PRECONDITION, f"volume {volume_id} is still attached to {where}")
            self.api.delete(Kind.VIRTUAL_DISK, volume_id)
            try:
                self.api.wait(Kind.VIRTUAL_DISK, volume_id, lambda d: d is None, min(timeout, self.s.timeouts.delete))
            except WaitTimeout as exc:
                raise CsiError(grpc.StatusCode.DEADLINE_EXCEEDED,
                               f"VirtualDisk {volume_id} is still being deleted") from exc
        self._delete_clone_snapshot(volume_id)

    def _delete_clone_snapshot(self, volume_id: str) -> None:
        snap = self.api.get(Kind.VIRTUAL_DISK_SNAPSHOT, names.clone_snapshot_name(volume_id))
        if snap is not None and ownership.is_ours(snap, self.s.cluster_uuid) and \
                (snap["metadata"].get("labels") or {}).get(objects.CLONE_FOR_LABEL) == volume_id:
            self.api.delete(Kind.VIRTUAL_DISK_SNAPSHOT, snap["metadata"]["name"])

    # -- expand ---------------------------------------------------------------------------------------------
    def expand(self, volume_id: str, rng: Range, timeout: float) -> int:
        disk = self.lookup.volume(volume_id)
        current = disks.disk_capacity(disk)
        if current >= rng.required:
            if rng.limit and current > rng.limit:
                raise CsiError(grpc.StatusCode.OUT_OF_RANGE,
                               f"volume {volume_id}: already {current} bytes, above limit_bytes")
            return current
        size = choose_size(rng, default=self.s.default_size)
        try:
            self.api.patch(Kind.VIRTUAL_DISK, volume_id,
                           {"spec": {"persistentVolumeClaim": {"size": format_bytes(size)}}})
        except DvpQuotaExceeded as exc:
            raise CsiError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"VirtualDisk {volume_id}: {exc}") from exc

        def done(d: Obj | None) -> bool:
            return d is None or disks.disk_capacity_status(d) >= size or disks.disk_failure(d) is not None

        try:
            disk = self.api.wait(Kind.VIRTUAL_DISK, volume_id, done, min(timeout, self.s.timeouts.create))
        except WaitTimeout as exc:
            raise CsiError(grpc.StatusCode.DEADLINE_EXCEEDED, f"VirtualDisk {volume_id} is still resizing") from exc
        if disk is None:
            raise CsiError(grpc.StatusCode.NOT_FOUND, f"volume {volume_id}: VirtualDisk deleted while resizing")
        failure = disks.disk_failure(disk)
        if failure:
            raise failure
        return max(size, disks.disk_capacity(disk))

    # -- list -----------------------------------------------------------------------------------------------
    def list(self, starting_token: str, max_entries: int) -> tuple[list[Obj], str]:
        found = self.api.list(Kind.VIRTUAL_DISK, ownership.owned_selector(self.s.cluster_uuid))
        found.sort(key=lambda d: d["metadata"]["name"])
        return paginate(found, starting_token, max_entries, "ListVolumes")

    def published_nodes(self, disk: Obj) -> list[str]:
        atts = self.lookup.attachments(disk["metadata"]["name"])
        return sorted({(a["metadata"].get("labels") or {}).get(labels.HOSTNAME, "") for a in atts} - {""})

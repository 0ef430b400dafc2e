# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CreateVolume, DeleteVolume, ControllerExpandVolume and ListVolumes over VirtualDisks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import grpc
from dvp_common.dvp import NotOurs, disk_state
from dvp_common.dvp.objects import Obj
from dvp_common.kube import WaitTimeout
from dvp_common.quantity import format_bytes

from .access import Dvp
from .domain import disks, labels, names
from .domain.capacity import Range, choose_size, fits
from .domain.errors import CsiError, invalid
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
    def __init__(self, dvp: Dvp, settings: Settings, room: Callable[[str, str, int], None] | None = None) -> None:
        """`room(name, dvp_class, size)` raises when the project's quota cannot take a new disk."""
        self.dvp = dvp
        self.s = settings
        self.room = room

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
        disk = self.dvp.disks.get_or_none(name)
        if disk is None and self.room is not None:
            self.room(csi_name, storage_class, size)
        if disk is None:
            ref = {"type": "ObjectRef", "objectRef": {"kind": data_source[0], "name": data_source[1]}} \
                if data_source else None
            body = self.dvp.disks.new(name, format_bytes(size), storage_class, data_source=ref,
                                      annotations={labels.CSI_NAME_ANNOTATION: csi_name})
            try:
                disk = self.dvp.disks.create(body)
            except NotOurs as exc:  # made meanwhile by someone else
                raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                               f"VirtualDisk {name} exists and is not a CSI volume of this cluster") from exc
        self._check_same(disk, csi_name, storage_class, data_source, rng)
        disk = self._wait_ready(name, timeout)
        return disk, disk_state.capacity_bytes(disk) or size

    def _check_same(self, disk: Obj, csi_name: str, storage_class: str, source: tuple[str, str] | None,
                    rng: Range) -> None:
        name = disk["metadata"]["name"]
        if not self.dvp.disks.made_by_us(disk):
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"VirtualDisk {name} exists and is not a CSI volume of this cluster")
        differs = []
        if disk_state.storage_class(disk) != storage_class:
            differs.append(f"{STORAGE_CLASS_PARAM} {disk_state.storage_class(disk)!r}")
        if disk_state.data_source(disk) != source:
            differs.append(f"content source {disk_state.data_source(disk)}")
        cap = disk_state.capacity_bytes(disk)
        if rng != Range() and not fits(cap, rng):
            differs.append(f"capacity {cap}")
        if differs:
            raise CsiError(grpc.StatusCode.ALREADY_EXISTS,
                           f"volume {csi_name} already exists with different {', '.join(differs)}")

    def _wait_ready(self, name: str, timeout: float) -> Obj:
        def done(d: Obj | None) -> bool:
            return d is None or disk_state.usable(d) or disks.disk_failure(d) is not None

        try:
            disk = self.dvp.disks.wait(name, done, min(timeout, self.s.timeouts.create), disks.describe)
        except WaitTimeout as exc:
            raise CsiError(grpc.StatusCode.DEADLINE_EXCEEDED,
                           f"VirtualDisk {name} is not ready yet ({exc.last_state})") from exc
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
            vds = self.dvp.snapshot(source.id)
            return (SNAPSHOT, vds["metadata"]["name"]), disks.snapshot_size(vds)
        # A clone: DVP disks are made from snapshots, so snapshot the source first and keep that snapshot until
        # the clone is deleted (a WaitForFirstConsumer disk reads it only when first used).
        src = self.dvp.volume(source.id)
        snap = names.clone_snapshot_name(name)
        size = disk_state.capacity_bytes(src)
        if self.dvp.snapshots.get_or_none(snap) is None:
            self.dvp.snapshots.create(self.dvp.snapshots.new(
                snap, src["metadata"]["name"], False, {labels.CLONE_FOR_LABEL: name},
                {labels.SIZE_ANNOTATION: str(size)}))
        return (SNAPSHOT, snap), size

    # -- delete ---------------------------------------------------------------------------------------------
    def delete(self, volume_id: str, timeout: float) -> None:
        disk = self.dvp.volume_or_none(volume_id, "delete")
        if disk is not None:
            on = disk_state.attached_vms(disk)
            if on or self.dvp.attachments.of_disk(volume_id):
                where = ", ".join(on) or "a VirtualMachineBlockDeviceAttachment"
                raise CsiError(grpc.StatusCode.FAILED_PRECONDITION, f"volume {volume_id} is still attached to {where}")
            self.dvp.disks.delete(volume_id, disk)  # the disk judged above, by uid
            try:
                self.dvp.disks.wait(volume_id, lambda d: d is None or d["metadata"]["uid"] != disk["metadata"]["uid"],
                                    min(timeout, self.s.timeouts.delete))
            except WaitTimeout as exc:
                raise CsiError(grpc.StatusCode.DEADLINE_EXCEEDED,
                               f"VirtualDisk {volume_id} is still being deleted") from exc
        self._delete_clone_snapshot(volume_id)

    def _delete_clone_snapshot(self, volume_id: str) -> None:
        snap = self.dvp.snapshots.get_or_none(names.clone_snapshot_name(volume_id))
        if snap is not None and self.dvp.snapshots.is_ours(snap) and \
                (snap["metadata"].get("labels") or {}).get(labels.CLONE_FOR_LABEL) == volume_id:
            self.dvp.snapshots.delete(snap["metadata"]["name"], snap)

    # -- expand ---------------------------------------------------------------------------------------------
    def expand(self, volume_id: str, rng: Range, timeout: float) -> int:
        disk = self.dvp.volume(volume_id)
        current = disk_state.capacity_bytes(disk)
        if current >= rng.required:
            if rng.limit and current > rng.limit:
                raise CsiError(grpc.StatusCode.OUT_OF_RANGE,
                               f"volume {volume_id}: already {current} bytes, above limit_bytes")
            return current
        size = choose_size(rng, default=self.s.default_size)
        grown = self.dvp.disks.resize(volume_id, format_bytes(size), disk)  # the disk judged above, by uid
        uid, generation = disk["metadata"]["uid"], grown["metadata"].get("generation")

        def done(d: Obj | None) -> bool:
            return d is None or d["metadata"]["uid"] != uid or disk_state.reported_bytes(d) >= size \
                or disks.disk_failure(d) is not None or disks.resize_refused(d, generation) is not None

        try:
            disk = self.dvp.disks.wait(volume_id, done, min(timeout, self.s.timeouts.create))
        except WaitTimeout as exc:
            raise CsiError(grpc.StatusCode.DEADLINE_EXCEEDED, f"VirtualDisk {volume_id} is still resizing") from exc
        if disk is None or disk["metadata"]["uid"] != uid:
            raise CsiError(grpc.StatusCode.NOT_FOUND, f"volume {volume_id}: VirtualDisk deleted while resizing")
        failure = disks.disk_failure(disk)
        if failure:
            raise failure
        refused = disks.resize_refused(disk, generation) if disk_state.reported_bytes(disk) < size else None
        if refused:
            raise refused
        return max(size, disk_state.capacity_bytes(disk))

    # -- list -----------------------------------------------------------------------------------------------
    def list(self, starting_token: str, max_entries: int) -> tuple[list[Obj], str]:
        found = self.dvp.disks.list() + self.dvp.adopted_volumes()
        found.sort(key=lambda d: d["metadata"]["name"])
        return paginate(found, starting_token, max_entries, "ListVolumes")

    def published_nodes(self, disk: Obj) -> list[str]:
        """The nodes of our attachments of the disk, but for one whose VolumeAttachment has no serial recorded (the
        upstream driver published none): left out, the external-attacher publishes it again and records it."""
        name = disk["metadata"]["name"]
        nodes = {_node_of(a, name) for a in self.dvp.attachments.of_disk(name)} - {""}
        cache = self.dvp.proof_cache
        return sorted(n for n in nodes if cache is None or not cache.unrecorded(name, n))


def _node_of(att: Obj, disk: str) -> str:
    """The guest node of one of our attachments: its hostname label, or for one adopted from the upstream driver
    (`vmbda-<disk>-<hostname>`, no hostname label) the hostname its `virtualMachineName` label holds."""
    lbls = att["metadata"].get("labels") or {}
    if lbls.get(labels.HOSTNAME):
        return lbls[labels.HOSTNAME]
    host = lbls.get(labels.VMBDA_VM, "")
    return host if host and att["metadata"]["name"] == f"vmbda-{disk}-{host}" else ""

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualDisks: created with our labels, found by `virtualDiskName`, waited on until usable."""

from __future__ import annotations

from typing import Any

from . import disk_state
from . import labels as L
from .connection import DVPConnection
from .errors import ProvisioningFailed, terminal
from .objects import Obj, Objects, phase
from .resources import VIRTUAL_DISK


def adopted(obj: Obj | None, cluster_uuid: str) -> bool:
    """An admin-made disk marked for this cluster's CSI volumes (never another component's disk)."""
    found = (obj or {}).get("metadata", {}).get("labels") or {}
    return (bool(cluster_uuid) and found.get(L.ADOPT_BY_CLUSTER) == cluster_uuid
            and found.get(L.COMPONENT) in (None, L.CSI))


class VirtualDisks(Objects):
    resource = VIRTUAL_DISK

    def __init__(self, conn: DVPConnection, component: str | None = None, owners: frozenset[str] | None = None,
                 *, adoptable: bool = False) -> None:
        """`adoptable`: disks an admin marked with ADOPT_BY_CLUSTER count as ours too (CSI volumes only)."""
        super().__init__(conn, component, owners)
        self.adoptable = adoptable

    def is_ours(self, obj: Obj | None) -> bool:
        return super().is_ours(obj) or (self.adoptable and adopted(obj, self.conn.cluster_uuid))

    def made_by_us(self, obj: Obj | None) -> bool:
        """Ours by our own labels (an adopted disk is usable, but we did not make it)."""
        return super().is_ours(obj)

    def require_ours(self, obj: Obj) -> Obj:
        if self.adoptable and adopted(obj, self.conn.cluster_uuid):
            return obj
        return super().require_ours(obj)

    def new(self, name: str, size: str | None, storage_class: str | None, *, data_source: Obj | None = None,
            hostname: str | None = None, owner: Obj | None = None, labels: dict[str, str] | None = None,
            annotations: dict[str, str] | None = None) -> Obj:
        pvc: dict[str, Any] = {}
        if size:
            pvc["size"] = size
        if storage_class:
            pvc["storageClassName"] = storage_class
        spec: Obj = {"persistentVolumeClaim": pvc}
        if data_source:
            spec["dataSource"] = data_source
        extra = {L.VIRTUAL_DISK_NAME: name, **(labels or {})}
        if hostname:
            extra[L.HOSTNAME] = hostname
        meta: Obj = {"ownerReferences": [self.owner_ref(owner)]} if owner else {}
        if annotations:
            meta["annotations"] = dict(annotations)
        return self.build(name, spec, extra, metadata=meta)

    def find(self, disk_name: str) -> Obj | None:
        """Our disk labelled virtualDiskName=<disk_name>; foreign disks are invisible."""
        return self.find_one({L.VIRTUAL_DISK_NAME: disk_name})

    def usable(self, obj: Obj | None, name: str = "") -> bool:
        """Ready or WaitForFirstConsumer; raises QuotaExceeded/ProvisioningFailed on a terminal state."""
        if obj is None:
            return False
        bad = disk_state.failure(obj)
        if bad:
            raise terminal("VirtualDisk", name or obj["metadata"]["name"], self.conn.namespace, *bad)
        return disk_state.usable(obj)

    def wait_usable(self, name: str, timeout: float) -> Obj:
        obj = self.wait(name, lambda o: self.usable(o, name), timeout)
        assert obj is not None
        return obj

    def resize(self, name: str, size: str, current: Obj | None = None) -> Obj:
        """Grow one of our disks; `current` (as read and judged by the caller) pins the uid the patch carries."""
        return self.patch(name, {"spec": {"persistentVolumeClaim": {"size": size}}}, current)

    def wait_resized(self, name: str, size_bytes: int, timeout: float) -> Obj:
        """Until DVP reports status.capacity of at least size_bytes, phase Ready."""
        def done(obj: Obj | None) -> bool:
            if obj is None:
                raise ProvisioningFailed("VirtualDisk", name, "deleted while resizing")
            return phase(obj) == "Ready" and disk_state.reported_bytes(obj) >= size_bytes and self.usable(obj, name)

        obj = self.wait(name, done, timeout)
        assert obj is not None
        return obj

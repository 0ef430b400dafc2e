# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualDiskSnapshots of our disks."""

from __future__ import annotations

from . import labels as L
from .errors import ProvisioningFailed
from .objects import Obj, Objects, phase
from .resources import VIRTUAL_DISK_SNAPSHOT


class Snapshots(Objects):
    resource = VIRTUAL_DISK_SNAPSHOT

    def new(self, name: str, disk: str, required_consistency: bool = True,
            labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None) -> Obj:
        meta = {"annotations": dict(annotations)} if annotations else {}
        return self.build(name, {"virtualDiskName": disk, "requiredConsistency": required_consistency},
                          {L.VIRTUAL_DISK_NAME: disk, **(labels or {})}, metadata=meta)

    def of_disk(self, disk: str) -> list[Obj]:
        return self.list({L.VIRTUAL_DISK_NAME: disk})

    def ready(self, obj: Obj | None, name: str) -> bool:
        if obj is None:
            raise ProvisioningFailed("VirtualDiskSnapshot", name, "deleted while waiting")
        if phase(obj) == "Failed":
            raise ProvisioningFailed("VirtualDiskSnapshot", name, "phase Failed")
        return phase(obj) == "Ready"

    def wait_ready(self, name: str, timeout: float) -> Obj:
        obj = self.wait(name, lambda o: self.ready(o, name), timeout)
        assert obj is not None
        return obj

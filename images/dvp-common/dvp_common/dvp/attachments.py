# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineBlockDeviceAttachments (hot-plugged disks), found by the disk and VM labels."""

from __future__ import annotations

from . import labels as L
from .errors import AttachmentFailed
from .objects import Obj, Objects, phase
from .resources import VMBDA


class Attachments(Objects):
    resource = VMBDA

    def find(self, disk: str, hostname: str) -> Obj | None:
        return self.find_one({L.VIRTUAL_MACHINE_DISK_NAME: disk, L.VIRTUAL_MACHINE_NAME: hostname})

    def for_vm(self, hostname: str) -> list[Obj]:
        return self.list({L.VIRTUAL_MACHINE_NAME: hostname})

    def new(self, disk: str, vm: Obj, hostname: str) -> Obj:
        labels = {L.VIRTUAL_MACHINE_DISK_NAME: disk, L.VIRTUAL_MACHINE_NAME: hostname, L.HOSTNAME: hostname}
        spec = {"virtualMachineName": vm["metadata"]["name"], "blockDeviceRef": {"kind": "VirtualDisk", "name": disk}}
        return self.build(L.vmbda_name(disk, hostname), spec, labels,
                          metadata={"ownerReferences": [self.owner_ref(vm, controller=False)]})

    def attach(self, disk: str, vm: Obj, hostname: str) -> Obj:
        """The existing attachment, or a new one (idempotent)."""
        return self.find(disk, hostname) or self.create(self.new(disk, vm, hostname))

    def attached(self, obj: Obj | None, name: str) -> bool:
        if obj is None:
            raise AttachmentFailed("VirtualMachineBlockDeviceAttachment", name, "deleted while attaching")
        if phase(obj) == "Failed":
            reasons = "; ".join(f"{c.get('type')}={c.get('reason')}: {c.get('message', '')}"
                                for c in (obj.get("status") or {}).get("conditions") or [] if c.get("status") != "True")
            raise AttachmentFailed("VirtualMachineBlockDeviceAttachment", name, f"phase Failed {reasons}".strip())
        return phase(obj) == "Attached"

    def wait_attached(self, name: str, timeout: float) -> Obj:
        obj = self.wait(name, lambda o: self.attached(o, name), timeout)
        assert obj is not None
        return obj

    def detach(self, disk: str, hostname: str) -> str | None:
        """Delete our attachment of `disk` to `hostname`; the name deleted, or None when there was none."""
        found = self.find(disk, hostname)
        if found is None:
            return None
        self.delete(found["metadata"]["name"])
        return str(found["metadata"]["name"])

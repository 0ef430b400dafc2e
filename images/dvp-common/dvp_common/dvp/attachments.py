# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineBlockDeviceAttachments (hot-plugged disks), found by the disk and VM labels.

An attachment is named and labelled by the disk and the VM (`virtualMachineName` holds the VM's name, as the label
says), with the guest node in the hostname label. It carries no ownerReference to the VM: the VM belongs to
another component, and an attachment left behind by a deleted VM is removed by its maker (the CSI driver detaches
it on the next publish or in its dead-VM pass), which is what tells the attacher the volume is free.
"""

from __future__ import annotations

from . import labels as L
from .errors import AttachmentFailed
from .objects import Obj, Objects, phase
from .resources import VMBDA

ATTACHED, FAILED = "Attached", "Failed"


class Attachments(Objects):
    resource = VMBDA

    def find(self, disk: str, vm: str) -> Obj | None:
        return self.find_one({L.VIRTUAL_MACHINE_DISK_NAME: disk, L.VIRTUAL_MACHINE_NAME: vm})

    def of_disk(self, disk: str) -> list[Obj]:
        return self.list({L.VIRTUAL_MACHINE_DISK_NAME: disk})

    def for_vm(self, vm: str) -> list[Obj]:
        return self.list({L.VIRTUAL_MACHINE_NAME: vm})

    def new(self, disk: str, vm: str, hostname: str) -> Obj:
        labels = {L.VIRTUAL_MACHINE_DISK_NAME: disk, L.VIRTUAL_MACHINE_NAME: vm, L.HOSTNAME: hostname}
        spec = {"virtualMachineName": vm, "blockDeviceRef": {"kind": "VirtualDisk", "name": disk}}
        return self.build(L.vmbda_name(disk, vm), spec, labels)

    def attach(self, disk: str, vm: str, hostname: str) -> Obj:
        """The existing attachment, or a new one (idempotent)."""
        return self.find(disk, vm) or self.create(self.new(disk, vm, hostname))

    def attached(self, obj: Obj | None, name: str) -> bool:
        if obj is None:
            raise AttachmentFailed("VirtualMachineBlockDeviceAttachment", name, "deleted while attaching")
        if phase(obj) == FAILED:
            reasons = "; ".join(f"{c.get('type')}={c.get('reason')}: {c.get('message', '')}"
                                for c in (obj.get("status") or {}).get("conditions") or [] if c.get("status") != "True")
            raise AttachmentFailed("VirtualMachineBlockDeviceAttachment", name, f"phase Failed {reasons}".strip())
        return phase(obj) == ATTACHED

    def wait_attached(self, name: str, timeout: float) -> Obj:
        obj = self.wait(name, lambda o: self.attached(o, name), timeout)
        assert obj is not None
        return obj

    def detach(self, disk: str, vm: str) -> str | None:
        """Delete our attachment of `disk` to `vm` (uid-guarded); the name deleted, or None when there was none."""
        found = self.find(disk, vm)
        if found is None:
            return None
        self.delete(found["metadata"]["name"], found)
        return str(found["metadata"]["name"])

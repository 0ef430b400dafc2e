# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineOperations: Start, Stop, Restart of our VMs (the spec is immutable: one object per request).

Names are deterministic (manifests.operation_name): a repeated request finds the operation it already made.
"""

from __future__ import annotations

from . import manifests
from .errors import OperationFailed
from .objects import Obj, Objects, phase
from .resources import VIRTUAL_MACHINE_OPERATION

START, STOP, RESTART = "Start", "Stop", "Restart"


class Operations(Objects):
    resource = VIRTUAL_MACHINE_OPERATION

    def new(self, vm: Obj, kind: str, token: str | int, force: bool = False,
            labels: dict[str, str] | None = None) -> Obj:
        vm_name = vm["metadata"]["name"]
        meta = manifests.metadata(manifests.operation_name(vm_name, kind, token), self.conn.cluster_uuid,
                                  self._me(), labels, owner=vm)
        return manifests.operation(meta, vm_name, kind, force)

    def request(self, vm: Obj, kind: str, token: str | int, force: bool = False,
                labels: dict[str, str] | None = None) -> Obj:
        """Create the operation `kind` for request `token` on our VM, or find the one already made."""
        return self.create(self.new(vm, kind, token, force, labels))

    def on_vm(self, vm_name: str) -> list[Obj]:
        """Every operation on the VM, ours or not: DVP counts them all."""
        return [o for o in self.list(ours=False) if (o.get("spec") or {}).get("virtualMachineName") == vm_name]

    def done(self, obj: Obj | None, name: str) -> bool:
        if obj is None:
            raise OperationFailed("VirtualMachineOperation", name, "deleted while waiting")
        if phase(obj) == "Failed":
            raise OperationFailed("VirtualMachineOperation", name, "phase Failed")
        return phase(obj) == "Completed"

    def wait_done(self, name: str, timeout: float) -> Obj:
        obj = self.wait(name, lambda o: self.done(o, name), timeout)
        assert obj is not None
        return obj

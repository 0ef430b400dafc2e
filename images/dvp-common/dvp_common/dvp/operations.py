# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineOperations: Start, Stop, Restart of our VMs (the spec is immutable: one object per request)."""

from __future__ import annotations

from .errors import OperationFailed
from .objects import Obj, Objects, phase
from .resources import VIRTUAL_MACHINE_OPERATION

START, STOP, RESTART = "Start", "Stop", "Restart"


class Operations(Objects):
    resource = VIRTUAL_MACHINE_OPERATION

    def request(self, vm_name: str, kind: str, force: bool = False) -> Obj:
        """Create an operation (generated name: a retried request must not run twice, so no POST retry)."""
        if kind == START and force:
            raise ValueError(f'VirtualMachine "{vm_name}": Start cannot be forced')
        body = self.build("", {"type": kind, "virtualMachineName": vm_name, "force": force},
                          metadata={"generateName": f"{kind.lower()}-{vm_name}-"[:58]})
        del body["metadata"]["name"]
        return self.kube.create(self.resource, body, self.ns)

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

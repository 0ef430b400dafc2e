# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineIPAddresses: static addresses reserved for our VMs."""

from __future__ import annotations

from .errors import ProvisioningFailed
from .objects import Obj, Objects, phase
from .resources import VIRTUAL_MACHINE_IP_ADDRESS


class IPAddresses(Objects):
    resource = VIRTUAL_MACHINE_IP_ADDRESS

    def new(self, name: str, static_ip: str | None = None, labels: dict[str, str] | None = None) -> Obj:
        spec = {"type": "Static", "staticIP": static_ip} if static_ip else {"type": "Auto"}
        return self.build(name, spec, labels)

    def wait_bound(self, name: str, timeout: float) -> Obj:
        def bound(obj: Obj | None) -> bool:
            if obj is None:
                raise ProvisioningFailed("VirtualMachineIPAddress", name, "deleted while waiting")
            return phase(obj) in ("Bound", "Attached")

        obj = self.wait(name, bound, timeout)
        assert obj is not None
        return obj

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineIPAddresses: static addresses reserved for our VMs."""

from __future__ import annotations

from . import manifests
from .errors import ProvisioningFailed
from .objects import Obj, Objects, phase
from .resources import VIRTUAL_MACHINE_IP_ADDRESS


class IPAddresses(Objects):
    resource = VIRTUAL_MACHINE_IP_ADDRESS

    def new(self, name: str, static_ip: str | None = None, labels: dict[str, str] | None = None) -> Obj:
        return manifests.ip_address(manifests.metadata(name, self.conn.cluster_uuid, self._me(), labels), static_ip)

    def wait_bound(self, name: str, timeout: float) -> Obj:
        def bound(obj: Obj | None) -> bool:
            if obj is None:
                raise ProvisioningFailed("VirtualMachineIPAddress", name, "deleted while waiting")
            return phase(obj) in ("Bound", "Attached")

        obj = self.wait(name, bound, timeout)
        assert obj is not None
        return obj

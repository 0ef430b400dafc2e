# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachines: made by capdvp (workers) or dhctl (masters), found by the hostname label, read and
labelled by CSI and CCM."""

from __future__ import annotations

from collections.abc import Iterable

from . import labels as L
from .errors import VMFailed
from .objects import Obj, Objects, phase
from .resources import VIRTUAL_MACHINE

MAX_BLOCK_DEVICES = 16
PROTECTED_LABELS = frozenset({L.CLUSTER_UUID, L.COMPONENT, L.MANAGED_BY, L.HOSTNAME})


class VirtualMachines(Objects):
    resource = VIRTUAL_MACHINE
    default_owners = L.NODE_MAKERS  # worker VMs come from capdvp, master VMs from the OpenTofu layouts

    def by_hostname(self, hostname: str) -> Obj | None:
        return self.find_one({L.HOSTNAME: hostname})

    def by_provider_id(self, provider_id: str) -> Obj | None:
        """Our VM for `dvp://<vm>`; None when absent or not ours. Another provider's ID raises ValueError."""
        name = L.parse_provider_id(provider_id)
        if name is None:
            raise ValueError(f'providerID "{provider_id}" is not a dvp:// ID')
        obj = self.get_or_none(name)
        return obj if obj is not None and self.is_ours(obj) else None

    def wait_phase(self, name: str, phases: Iterable[str], timeout: float,
                   failed: Iterable[str] = ()) -> Obj:
        wanted, bad = frozenset(phases), frozenset(failed)

        def done(obj: Obj | None) -> bool:
            if obj is None:
                raise VMFailed("VirtualMachine", name, "deleted while waiting")
            if phase(obj) in bad:
                raise VMFailed("VirtualMachine", name, f"phase {phase(obj)}")
            return phase(obj) in wanted

        obj = self.wait(name, done, timeout)
        assert obj is not None
        return obj

    def set_labels(self, name: str, labels: dict[str, str | None], current: Obj | None = None) -> Obj:
        """Merge labels onto one of our VMs (None removes a key); the ownership labels cannot be touched.
        `current`: the VM as the caller judged it (e.g. from a cache); the patch carries its uid."""
        protected = PROTECTED_LABELS & labels.keys()
        if protected:
            raise ValueError(f'VirtualMachine "{name}": labels {sorted(protected)} are not ours to change')
        return self.patch(name, {"metadata": {"labels": labels}}, current)

    @staticmethod
    def ip_address(obj: Obj) -> str:
        return str((obj.get("status") or {}).get("ipAddress") or "")

    @staticmethod
    def static_block_devices(obj: Obj) -> int:
        return len((obj.get("spec") or {}).get("blockDeviceRefs") or [])

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Why a created VM does not run, read from DVP's own conditions, as the Ready condition of its machine.

DVP keeps a VM Pending while it waits for something that may still come (sim/CONTRACT.md, "What Pending
means"): the reason is on a condition, never in the phase. A state found here is Ready=False with a reason of its own
and no failureReason: it clears on the next pass after DVP recovers (the class is created again, quota freed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from capdvp.domain import conditions as c

# DVP's condition types and reasons read here (VirtualMachine and VirtualDisk status.conditions)
DVP_CLASS_READY = "VirtualMachineClassReady"
DVP_READY = "Ready"
DVP_QUOTA_EXCEEDED = "QuotaExceeded"
DVP_DATASOURCE_NOT_FOUND = "DatasourceIsNotFound"


def dvp_condition(obj: Mapping, ctype: str) -> Mapping | None:
    return next((x for x in (obj.get("status") or {}).get("conditions") or [] if x.get("type") == ctype), None)


def _false(obj: Mapping, ctype: str, reason: str | None = None) -> Mapping | None:
    cond = dvp_condition(obj, ctype)
    if cond and cond.get("status") == c.FALSE and (reason is None or cond.get("reason") == reason):
        return cond
    return None


def pending_cause(vm: Mapping, owned: Sequence[Mapping]) -> c.Condition | None:
    """The cause DVP names for a VM that cannot run yet (its class, its disks' quota or image), or None."""
    name = (vm.get("metadata") or {}).get("name", "")
    cls = _false(vm, DVP_CLASS_READY)
    if cls is not None:
        klass = (vm.get("spec") or {}).get("virtualMachineClassName")
        return c.Condition(c.VM_READY, c.FALSE, c.VM_CLASS_MISSING,
                           f"VirtualMachine {name} waits for VirtualMachineClass {klass!r}: {cls.get('message', '')}")
    for obj in owned:
        if obj.get("kind") != "VirtualDisk":
            continue
        disk = (obj.get("metadata") or {}).get("name", "")
        quota = _false(obj, DVP_READY, DVP_QUOTA_EXCEEDED)
        if quota is not None:
            return c.Condition(c.VM_READY, c.FALSE, c.DISK_QUOTA_EXCEEDED,
                               f"VirtualDisk {disk} of VirtualMachine {name} waits for DVP quota: "
                               f"{quota.get('message', '')}")
        source = _false(obj, DVP_READY, DVP_DATASOURCE_NOT_FOUND)
        if source is not None:
            return c.Condition(c.VM_READY, c.FALSE, c.BOOT_IMAGE_MISSING,
                               f"VirtualDisk {disk} of VirtualMachine {name} waits for its image: "
                               f"{source.get('message', '')}")
    return None

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Why a created VM does not run, read from DVP's own conditions, as the Ready condition of its machine.

DVP keeps a VM Pending while it waits for something that may still come (sim/CONTRACT.md, "What Pending
means"): the reason is on a condition, never in the phase. A state found here is Ready=False with a reason of its own
and no failureReason: it clears on the next pass after DVP recovers (the class is created again, quota freed, a node
fits). Decided by DVP's condition types and reasons (dvp_common.dvp.conditions, both spellings), never by a message:
DVP's message is only shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dvp_common.dvp import conditions as D

from capdvp.domain import conditions as c

# DVP's condition types and reasons read here (VirtualMachine and VirtualDisk status.conditions)
DVP_CLASS_READY = D.VM_CLASS_READY.value
DVP_READY = D.VD_READY.value
DVP_QUOTA_EXCEEDED = D.reason_of(D.VD_READY, "QuotaExceeded").value
DVP_DATASOURCE_NOT_FOUND = D.reason_of(D.VD_READY, "DatasourceIsNotFound").value
DVP_DATASOURCE_NOT_READY = D.reason_of(D.VD_READY, "DatasourceIsNotReady").value

# A VM's own causes, in the order DVP's handlers gate a start: (DVP condition type, the reasons that are a cause
# when False (empty: any), our reason, what it means for the VM).
VM_CAUSES: tuple[tuple[D.ConditionType, tuple[str, ...], str, str], ...] = (
    (D.VM_SIZING_POLICY_MATCHED, (), c.VM_SIZING_POLICY_NOT_MATCHED, "does not fit its VirtualMachineClass"),
    (D.VM_BLOCK_DEVICES_READY, ("BlockDeviceLimitExceeded",), c.VM_BLOCK_DEVICE_LIMIT,
     "has more block devices than DVP attaches"),
    (D.VM_IP_ADDRESS_READY, ("VirtualMachineIPAddressNotAvailable",), c.VM_ADDRESS_NOT_AVAILABLE,
     "cannot have its address"),
    (D.VM_RUNNING, ("PodNotStarted",), c.VM_POD_NOT_STARTED, "cannot be started by DVP"),
)
# Every type read, for the manager's watch predicate (a change of one of them turning False is news).
TYPES_READ = (DVP_CLASS_READY, DVP_READY, *(t.value for t, *_ in VM_CAUSES))


def dvp_condition(obj: Mapping, ctype: str) -> Mapping | None:
    return next((x for x in (obj.get("status") or {}).get("conditions") or [] if x.get("type") == ctype), None)


def _false(obj: Mapping, ctype: str, reason: str | None = None) -> Mapping | None:
    cond = dvp_condition(obj, ctype)
    if cond and cond.get("status") == c.FALSE and (reason is None or cond.get("reason") == reason):
        return cond
    return None


def _vm_cause(vm: Mapping, name: str) -> c.Condition | None:
    for ctype, reasons, ours, meaning in VM_CAUSES:
        cond = D.get(vm, ctype)
        if not cond or cond.get("status") != c.FALSE:
            continue
        if reasons and not any(D.is_reason(cond, ctype, r) for r in reasons):
            continue
        return c.Condition(c.VM_READY, c.FALSE, ours, f"VirtualMachine {name} {meaning} "
                           f"({ctype.value}={cond.get('reason', '')}): {cond.get('message', '')}")
    return None


def _disk_cause(disk: Mapping, vm_name: str) -> c.Condition | None:
    ready = D.get(disk, D.VD_READY)
    if not ready or ready.get("status") != c.FALSE:
        return None
    name = (disk.get("metadata") or {}).get("name", "")
    reason, message = str(ready.get("reason") or ""), str(ready.get("message") or "")
    of = f"VirtualDisk {name} of VirtualMachine {vm_name}"
    if D.is_reason(ready, D.VD_READY, DVP_QUOTA_EXCEEDED):
        return c.Condition(c.VM_READY, c.FALSE, c.DISK_QUOTA_EXCEEDED, f"{of} waits for DVP quota: {message}")
    if D.is_reason(ready, D.VD_READY, DVP_DATASOURCE_NOT_FOUND):
        return c.Condition(c.VM_READY, c.FALSE, c.BOOT_IMAGE_MISSING, f"{of} waits for its image: {message}")
    if D.is_reason(ready, D.VD_READY, DVP_DATASOURCE_NOT_READY):
        return c.Condition(c.VM_READY, c.FALSE, c.BOOT_IMAGE_NOT_READY,
                           f"{of} waits for its image to be ready: {message}")
    if D.meaning(ready, D.VD_READY) in (D.Meaning.TERMINAL, D.Meaning.CAPACITY):
        return c.Condition(c.VM_READY, c.FALSE, c.DISK_NOT_PROVISIONABLE,
                           f"{of} cannot be provisioned (Ready={reason}): {message}")
    return None  # on its way (Provisioning, WaitingForFirstConsumer ...), or a reason DVP added later


def pending_cause(vm: Mapping, owned: Sequence[Mapping]) -> c.Condition | None:
    """The cause DVP names for a VM that cannot run yet (its class, sizing, devices, address, pod, its disks'
    quota, image or provisioning), or None."""
    name = (vm.get("metadata") or {}).get("name", "")
    cls = _false(vm, DVP_CLASS_READY)
    if cls is not None:
        klass = (vm.get("spec") or {}).get("virtualMachineClassName")
        return c.Condition(c.VM_READY, c.FALSE, c.VM_CLASS_MISSING,
                           f"VirtualMachine {name} waits for VirtualMachineClass {klass!r}: {cls.get('message', '')}")
    for obj in owned:
        if obj.get("kind") == "VirtualDisk":
            cause = _disk_cause(obj, name)
            if cause is not None:
                return cause
    return _vm_cause(vm, name)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineBlockDeviceAttachment: Pending -> InProgress -> Attached; a full VM keeps it Pending
(DiskAttachmentCapacityAvailableType=False/CapacityReached, Attached=False/NotAttached) until a slot frees;
deletion holds the vmbda-protection finalizer until the VM and the disk no longer show the attachment."""

from __future__ import annotations

from .. import conditions as C
from .. import indexes as ix
from ..settings import MAX_BLOCK_DEVICES
from ..world import deleting, meta, phase, spec, status
from .plan import Obj, Plan, changed, new_status

KIND = "VirtualMachineBlockDeviceAttachment"


def shown_on_vm(att: Obj, vm: Obj | None) -> bool:
    return any(r.get("virtualMachineBlockDeviceAttachmentName") == meta(att)["name"]
               for r in status(vm).get("blockDeviceRefs") or [])


def disk_lists_vm(att: Obj, world) -> bool:
    ref = spec(att).get("blockDeviceRef") or {}
    if ref.get("kind") != "VirtualDisk":
        return False
    disk = world.get("VirtualDisk", meta(att).get("namespace"), ref.get("name"))
    return any(e.get("name") == spec(att).get("virtualMachineName")
               for e in status(disk).get("attachedToVirtualMachines") or [])


def devices_in_use(att: Obj, vm: Obj, world) -> int:
    """Static devices of the VM plus its other live attachments."""
    count = len(spec(vm).get("blockDeviceRefs") or [])
    for other in world.by(KIND, ix.of_vm, ix.in_ns(meta(att).get("namespace"), meta(vm)["name"])):
        if (meta(other).get("uid") != meta(att).get("uid") and not deleting(other)
                and spec(other).get("virtualMachineName") == meta(vm)["name"]
                and phase(other) in ("InProgress", "Attached")):
            count += 1
    return count


def reconcile(att: Obj, world, cfg) -> Plan:
    plan = Plan()
    ns = meta(att).get("namespace")
    finalizers = list(meta(att).get("finalizers") or [])
    vm = world.get("VirtualMachine", ns, spec(att).get("virtualMachineName", ""))
    st = new_status(att)
    if deleting(att):
        if C.VMBDA_FINALIZER not in finalizers:
            return plan
        if st.get("phase") in ("InProgress", "Attached"):
            st["phase"] = "Terminating"
            world.enter(att, "Terminating")
            plan.wake(cfg.delay(KIND, "Terminating"))
        elif not shown_on_vm(att, vm) and not (vm and disk_lists_vm(att, world)):
            finalizers.remove(C.VMBDA_FINALIZER)
            plan.patch = {"metadata": {"finalizers": finalizers or None,
                                       "resourceVersion": meta(att).get("resourceVersion")}}
        plan.status = changed(att, st)
        return plan
    if C.VMBDA_FINALIZER not in finalizers:
        plan.patch = {"metadata": {"finalizers": [*finalizers, C.VMBDA_FINALIZER],
                                   "resourceVersion": meta(att).get("resourceVersion")}}
    st["virtualMachineName"] = spec(att).get("virtualMachineName", "")
    current = st.get("phase") or ""
    if current == "":
        st["phase"] = current = "Pending"
        world.enter(att, "Pending")
    if current == "Pending":
        # DVP runs all its VMBDA handlers in one pass: a new attachment whose VM runs and whose device is Ready
        # gets the hot-plug request and InProgress in its first status write (C8), Pending in none.
        _pending(att, st, vm, world, cfg, plan)
    elif current == "InProgress":
        if vm is None:
            st["phase"] = "Failed"
            C.put(st, C.VM_READY, False, C.R_VMBDA_VM_NOT_READY, "the virtual machine is gone")
        elif shown_on_vm(att, vm) and disk_lists_vm(att, world):
            st["phase"] = "Attached"
            C.put(st, C.ATTACHED, True, C.R_ATTACHED, "the device is attached to the virtual machine")
    plan.status = changed(att, st)
    return plan


def _pending(att: Obj, st: Obj, vm: Obj | None, world, cfg, plan: Plan) -> None:
    ns, ref = meta(att).get("namespace"), spec(att).get("blockDeviceRef") or {}
    if vm is None or phase(vm) != "Running":
        C.put(st, C.VM_READY, False, C.R_VMBDA_VM_NOT_READY,
              "the virtual machine is not found" if vm is None else f"the virtual machine is {phase(vm) or 'Pending'}")
        return
    C.put(st, C.VM_READY, True, C.R_VMBDA_VM_READY)
    device = world.get(ref.get("kind", ""), None if ref.get("kind") == "ClusterVirtualImage" else ns,
                       ref.get("name", ""))
    if device is None or phase(device) != "Ready":
        C.put(st, C.BLOCK_DEVICE_READY, False, C.R_BLOCK_DEVICE_NOT_READY,
              f"{ref.get('kind')} {ref.get('name')} is {'not found' if device is None else phase(device) or 'Pending'}")
        return
    C.put(st, C.BLOCK_DEVICE_READY, True, C.R_BLOCK_DEVICE_READY)
    wanted = devices_in_use(att, vm, world) + 1  # DVP counts the attachment asking too
    if wanted > MAX_BLOCK_DEVICES:
        C.put(st, C.CAPACITY_AVAILABLE, False, C.R_CAPACITY, f"Can not attach {wanted} block devices "
              f"({MAX_BLOCK_DEVICES} is maximum) to `VirtualMachine` \"{meta(vm)['name']}\"")
        C.put(st, C.ATTACHED, False, C.R_NOT_ATTACHED, "Virtual machine block device capacity reached.")
        return
    C.put(st, C.CAPACITY_AVAILABLE, True, C.R_CAPACITY_OK)
    st["phase"] = "InProgress"
    C.put(st, C.ATTACHED, False, C.R_ATTACH_SENT, "the attachment request was sent")
    world.enter(att, "InProgress")

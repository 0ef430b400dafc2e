# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachine: Pending -> Starting -> Running once class, disks, cloud-init Secret and address are there;
Stop/Start/Restart through VirtualMachineOperations; hot-plugged disks from attachments."""

from __future__ import annotations

import hashlib
import string

from .. import conditions as C
from .. import indexes as ix
from .. import quantity
from ..world import deleting, meta, phase, spec, status
from .plan import Obj, Plan, Write, changed, new_status, wait_phase

KIND = "VirtualMachine"
VMBDA = "VirtualMachineBlockDeviceAttachment"
VMOP = "VirtualMachineOperation"
TARGETS = [f"sd{c}" for c in string.ascii_lowercase] + [f"sda{c}" for c in string.ascii_lowercase]


def operations(vm: Obj, world) -> list[Obj]:
    """InProgress operations on this VM, oldest first."""
    name = meta(vm)["name"]
    ops = [op for op in world.by(VMOP, ix.of_vm, ix.in_ns(meta(vm).get("namespace"), name))
           if spec(op).get("virtualMachineName") == name and phase(op) == "InProgress" and not deleting(op)]
    return sorted(ops, key=lambda op: (meta(op).get("creationTimestamp") or "", meta(op)["name"]))


def wanted(vm: Obj, world) -> str | None:
    """The power intent of the newest operation: Start, Stop or Restart (None without one)."""
    ops = [op for op in operations(vm, world) if spec(op).get("type") in ("Start", "Stop", "Restart")]
    return spec(ops[-1]).get("type") if ops else None


def complete(vm: Obj, world, types: tuple[str, ...]) -> list[Write]:
    out = []
    for op in operations(vm, world):
        if spec(op).get("type") in types:
            st = new_status(op)
            st["phase"] = "Completed"
            C.put(st, C.COMPLETED, True, "OperationCompleted", f"{spec(op)['type']} of {meta(vm)['name']} completed")
            out.append(Write(VMOP, op, status=st))
    return out


def ip_name(vm: Obj) -> str:
    return spec(vm).get("virtualMachineIPAddressName") or meta(vm)["name"]


def node_for(vm: Obj, nodes: tuple[str, ...]) -> str:
    digest = hashlib.sha256(str(meta(vm).get("uid")).encode()).digest()
    return nodes[digest[0] % len(nodes)]


def device_size(kind: str, name: str, ns: str, world, cfg) -> str:
    if kind == "VirtualDisk":
        obj = world.get(kind, ns, name)
        return str(status(obj).get("capacity") or "")
    return cfg.image_size


def missing_requirements(vm: Obj, world, cfg, st: Obj, plan: Plan) -> list[str]:
    """What keeps the VM Pending (also recorded as conditions); creates its automatic address if needed."""
    ns, missing = meta(vm).get("namespace"), []
    cls = spec(vm).get("virtualMachineClassName") or ""
    if cfg.require_vm_class and world.get("VirtualMachineClass", None, cls) is None:
        C.put(st, C.CLASS_READY, False, C.R_NOT_FOUND, f'VirtualMachineClass "{cls}" not found')
        missing.append(f"class {cls}")
    else:
        C.put(st, C.CLASS_READY, True, C.R_READY)
    devices = []
    for ref in spec(vm).get("blockDeviceRefs") or []:
        kind, name = ref.get("kind"), ref.get("name")
        obj = world.get(kind, None if kind == "ClusterVirtualImage" else ns, name)
        if obj is None:
            devices.append(f"{kind} {name} not found")
        elif phase(obj) != "Ready":
            devices.append(f"{kind} {name} is {phase(obj) or 'Pending'}")
    if devices:
        C.put(st, C.BLOCK_DEVICES_READY, False, C.R_NOT_READY, "; ".join(devices))
        missing += devices
    else:
        C.put(st, C.BLOCK_DEVICES_READY, True, C.R_READY)
    prov = spec(vm).get("provisioning") or {}
    if prov.get("type") == "UserDataRef":
        secret = (prov.get("userDataRef") or {}).get("name", "")
        if world.get("Secret", ns, secret) is None:
            C.put(st, C.PROVISIONING_READY, False, C.R_NOT_FOUND, f'Secret "{secret}" not found')
            missing.append(f"secret {secret}")
        else:
            C.put(st, C.PROVISIONING_READY, True, C.R_READY)
    vmip = world.get("VirtualMachineIPAddress", ns, ip_name(vm))
    if vmip is None and not spec(vm).get("virtualMachineIPAddressName"):
        plan.creates.append(("VirtualMachineIPAddress", {
            "apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachineIPAddress",
            "metadata": {"name": ip_name(vm), "namespace": ns, "ownerReferences": [_owner(vm)]},
            "spec": {"type": "Auto"}}))
    if vmip is None or phase(vmip) not in ("Bound", "Attached"):
        C.put(st, C.IP_ADDRESS_READY, False, C.R_NOT_READY, f'VirtualMachineIPAddress "{ip_name(vm)}" is not bound')
        missing.append("ip address")
    else:
        C.put(st, C.IP_ADDRESS_READY, True, C.R_READY)
    return missing


def _owner(vm: Obj) -> Obj:
    return {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": KIND, "name": meta(vm)["name"],
            "uid": meta(vm)["uid"], "controller": True, "blockOwnerDeletion": True}


def hotplugged(vm: Obj, world, cfg, plan: Plan) -> list[Obj]:
    """Attachments the VM currently shows: attached ones, and requested ones whose attach delay passed;
    a deleted attachment stays until its detach delay passed."""
    out = []
    for att in world.by(VMBDA, ix.of_vm, ix.in_ns(meta(vm).get("namespace"), meta(vm)["name"])):
        if spec(att).get("virtualMachineName") != meta(vm)["name"]:
            continue
        ph = phase(att)
        if ph == "Terminating":
            if wait_phase(plan, world, att, VMBDA, "Terminating", cfg):
                continue
            out.append(att)
        elif deleting(att) and ph not in ("Attached", "InProgress"):
            continue  # deleted before it was ever attached; an attached one detaches through Terminating
        elif ph == "Attached" or (ph == "InProgress" and wait_phase(plan, world, att, VMBDA, "InProgress", cfg)):
            out.append(att)
    return sorted(out, key=lambda a: (meta(a).get("creationTimestamp") or "", meta(a)["name"]))


def device_refs(vm: Obj, world, cfg, plan: Plan, attached: bool) -> list[Obj]:
    ns, refs = meta(vm).get("namespace"), []
    for ref in spec(vm).get("blockDeviceRefs") or []:
        refs.append({"kind": ref["kind"], "name": ref["name"],
                     "size": device_size(ref["kind"], ref["name"], ns, world, cfg),
                     "attached": attached, "target": TARGETS[len(refs)], "hotplugged": False})
    if attached:
        for att in hotplugged(vm, world, cfg, plan):
            ref = spec(att).get("blockDeviceRef") or {}
            refs.append({"kind": ref.get("kind"), "name": ref.get("name"),
                         "size": device_size(ref.get("kind"), ref.get("name"), ns, world, cfg),
                         "attached": True, "target": TARGETS[len(refs) % len(TARGETS)], "hotplugged": True,
                         "virtualMachineBlockDeviceAttachmentName": meta(att)["name"]})
    return refs


def reconcile(vm: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(vm):
        return plan
    st = new_status(vm)
    st["observedGeneration"] = meta(vm).get("generation", 1)
    current = st.get("phase") or ""
    intent = wanted(vm, world)
    run_policy = spec(vm).get("runPolicy") or "AlwaysOnUnlessStoppedManually"
    if current == "":
        st["phase"] = "Pending"
        world.enter(vm, "Pending")
    elif current == "Pending":
        if not missing_requirements(vm, world, cfg, st, plan):
            if run_policy in ("AlwaysOff", "Manual") and intent not in ("Start", "Restart"):
                st["phase"] = "Stopped"
                plan.first += complete(vm, world, ("Stop",))
            else:
                _to(st, vm, world, "Starting")
                plan.wake(cfg.delay(KIND, "Starting"))
    elif current == "Starting":
        if intent == "Stop":
            _to(st, vm, world, "Stopping")
            plan.wake(cfg.delay(KIND, "Stopping"))
        elif wait_phase(plan, world, vm, KIND, "Starting", cfg):
            _running(vm, st, world, cfg, plan)
            plan.first += complete(vm, world, ("Start", "Restart"))
    elif current == "Running":
        if intent in ("Stop", "Restart") or run_policy == "AlwaysOff":
            _to(st, vm, world, "Stopping")
            plan.wake(cfg.delay(KIND, "Stopping"))
        else:
            _running(vm, st, world, cfg, plan)
            plan.first += complete(vm, world, ("Start",))
    elif current == "Stopping":
        if wait_phase(plan, world, vm, KIND, "Stopping", cfg):
            if intent == "Restart":
                _to(st, vm, world, "Starting")
                plan.wake(cfg.delay(KIND, "Starting"))
            else:
                st["phase"] = "Stopped"
                plan.first += complete(vm, world, ("Stop",))
            st.pop("nodeName", None)
            st["blockDeviceRefs"] = device_refs(vm, world, cfg, plan, attached=False)
            C.put(st, C.RUNNING, False, "VirtualMachineStopped")
    elif current == "Stopped":
        if intent in ("Start", "Restart") or run_policy == "AlwaysOn":
            _to(st, vm, world, "Starting")
            plan.wake(cfg.delay(KIND, "Starting"))
        else:
            plan.first += complete(vm, world, ("Stop",))
    plan.status = changed(vm, st)
    return plan


def _to(st: Obj, vm: Obj, world, new_phase: str) -> None:
    st["phase"] = new_phase
    world.enter(vm, new_phase)


def _running(vm: Obj, st: Obj, world, cfg, plan: Plan) -> None:
    vmip = world.get("VirtualMachineIPAddress", meta(vm).get("namespace"), ip_name(vm))
    st["phase"] = "Running"
    st["ipAddress"] = status(vmip).get("address", "")
    st["virtualMachineIPAddressName"] = ip_name(vm)
    st["nodeName"] = node_for(vm, cfg.nodes)
    st["blockDeviceRefs"] = device_refs(vm, world, cfg, plan, attached=True)
    C.put(st, C.RUNNING, True, "VirtualMachineRunning")


def static_count(vm: Obj) -> int:
    return len(spec(vm).get("blockDeviceRefs") or [])


__all__ = ["KIND", "quantity", "reconcile", "static_count"]

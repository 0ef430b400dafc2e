# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachine: Pending -> Starting -> Running once class, disks, cloud-init Secret and address are there;
Stop/Start/Restart through VirtualMachineOperations; hot-plugged disks from attachments; a spec change that
needs a restart waits for one (AwaitingRestartToApplyConfiguration), which DVP makes itself under
restartApprovalMode Automatic."""

from __future__ import annotations

import hashlib
import ipaddress
import string

from .. import conditions as C
from .. import indexes as ix
from .. import quantity
from ..world import deleting, meta, phase, spec, status
from .admission import core_fraction
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
            C.put(st, C.COMPLETED, True, C.R_OPERATION_COMPLETED, f"{spec(op)['type']} of {meta(vm)['name']} completed")
            out.append(Write(VMOP, op, status=st))
    return out


def ip_name(vm: Obj) -> str:
    return spec(vm).get("virtualMachineIPAddressName") or meta(vm)["name"]


def networks(vm: Obj, main_ip: str, cfg) -> list[Obj]:
    """status.networks: the main interface (DVP reports no address there; it is status.ipAddress) and each
    additional network, with an address when the network has a pool (C18)."""
    out = []
    wanted = spec(vm).get("networks") or [{"type": "Main"}]
    for i, net in enumerate(wanted):
        mac = "02:" + hashlib.sha256(f"{meta(vm).get('uid')}/{i}".encode()).hexdigest()[:10]
        item = {"type": net.get("type"), "name": net.get("name") or net.get("type"),
                "macAddress": ":".join([mac[:2]] + [mac[j:j + 2] for j in range(3, 13, 2)])}
        pool = cfg.network_pools.get(net.get("name") or "")
        if net.get("type") != "Main" and pool and main_ip:
            index = int(ipaddress.ip_address(main_ip)) - int(ipaddress.ip_network(cfg.ip_pool).network_address)
            item["ipAddress"] = str(ipaddress.ip_network(pool).network_address + index)
        out.append(item)
    return out


def migrating(vm: Obj, world) -> bool:
    return any(spec(op).get("type") == "Migrate" for op in operations(vm, world))


def next_node(current: str, nodes: tuple[str, ...]) -> str:
    """A live migration's target: the next DVP node after the current one (another node whenever there are two)."""
    return nodes[(nodes.index(current) + 1) % len(nodes)] if current in nodes else nodes[0]


def _requirement_met(req: Obj, value: str | None) -> bool:
    op, values = req.get("operator"), req.get("values") or []
    if op in ("Gt", "Lt"):
        try:
            have, want = int(value or ""), int(values[0])
        except (ValueError, IndexError):
            return False
        return have > want if op == "Gt" else have < want
    return {"In": value is not None and value in values, "NotIn": value is None or value not in values,
            "Exists": value is not None, "DoesNotExist": value is None}.get(op, False)


def _term_met(term: Obj, node: str, labels: Obj) -> bool:
    expressions, fields = term.get("matchExpressions") or [], term.get("matchFields") or []
    # an empty term matches no node, as for a pod
    return bool(expressions or fields) and all(_requirement_met(r, labels.get(r.get("key"))) for r in expressions) \
        and all(_requirement_met(r, node if r.get("key") == "metadata.name" else None) for r in fields)


def schedulable(vm: Obj, cfg) -> tuple[str, ...]:
    """The DVP nodes the VM's pod could run on: labels matching its nodeSelector and, when it has one, a term of
    its required node affinity (as for a pod: terms ORed, requirements ANDed)."""
    want = spec(vm).get("nodeSelector") or {}
    terms = ((((spec(vm).get("affinity") or {}).get("nodeAffinity") or {})
              .get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms"))

    def fits(n: str) -> bool:
        labels = cfg.node_labels.get(n) or {}
        return all(labels.get(k) == v for k, v in want.items()) and (
            terms is None or any(_term_met(t, n, labels) for t in terms))

    return tuple(n for n in cfg.nodes if fits(n))


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
        C.put(st, C.CLASS_READY, False, C.R_CLASS_NOT_READY, f'VirtualMachineClass "{cls}" not found')
        missing.append(f"class {cls}")
    else:
        C.put(st, C.CLASS_READY, True, C.R_CLASS_READY)
    devices = []
    for ref in spec(vm).get("blockDeviceRefs") or []:
        kind, name = ref.get("kind"), ref.get("name")
        obj = world.get(kind, None if kind == "ClusterVirtualImage" else ns, name)
        if obj is None:
            devices.append(f"{kind} {name} not found")
        elif phase(obj) != "Ready":
            devices.append(f"{kind} {name} is {phase(obj) or 'Pending'}")
    if devices:
        C.put(st, C.BLOCK_DEVICES_READY, False, C.R_BLOCK_DEVICES_NOT_READY, "; ".join(devices))
        missing += devices
    else:
        C.put(st, C.BLOCK_DEVICES_READY, True, C.R_BLOCK_DEVICES_READY)
    prov = spec(vm).get("provisioning") or {}
    if prov.get("type") == "UserDataRef":
        secret = (prov.get("userDataRef") or {}).get("name", "")
        if world.get("Secret", ns, secret) is None:
            C.put(st, C.PROVISIONING_READY, False, C.R_PROVISIONING_NOT_READY, f'Secret "{secret}" not found')
            missing.append(f"secret {secret}")
        else:
            C.put(st, C.PROVISIONING_READY, True, C.R_PROVISIONING_READY)
    vmip = world.get("VirtualMachineIPAddress", ns, ip_name(vm))
    if vmip is None and not spec(vm).get("virtualMachineIPAddressName"):
        plan.creates.append(("VirtualMachineIPAddress", {
            "apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachineIPAddress",
            "metadata": {"name": ip_name(vm), "namespace": ns, "ownerReferences": [_owner(vm)]},
            "spec": {"type": "Auto"}}))
    if vmip is None or phase(vmip) not in ("Bound", "Attached"):
        C.put(st, C.IP_ADDRESS_READY, False, C.R_IP_NOT_READY, f'VirtualMachineIPAddress "{ip_name(vm)}" is not bound')
        missing.append("ip address")
    else:
        C.put(st, C.IP_ADDRESS_READY, True, C.R_IP_READY)
    if not schedulable(vm, cfg):
        C.put(st, C.RUNNING, False, C.R_POD_NOT_STARTED,
              f"0/{len(cfg.nodes)} nodes are available: node(s) didn't match Pod's node affinity/selector")
        missing.append("a node matching the nodeSelector and node affinity")
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


def device_refs(vm: Obj, world, cfg, plan: Plan, attached: bool, static: list[Obj] | None = None) -> list[Obj]:
    """The VM's devices: `static` (default: the spec's list) then, when attached, the hot-plugged ones."""
    ns, refs = meta(vm).get("namespace"), []
    for ref in spec(vm).get("blockDeviceRefs") or [] if static is None else static:
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


# Spec fields whose change DVP applies only by restarting the VM, as its status shows what the VM runs with
# (status.resources, the address name, the static block devices). DVP compares the spec with the one it last
# applied; the rest of the spec (runPolicy, liveMigrationPolicy, labels ...) applies without a restart.
RESTART_FIELDS = ("cpu.cores", "cpu.coreFraction", "memory.size", "virtualMachineIPAddressName", "blockDeviceRefs")


def running_config(vm: Obj) -> dict | None:
    """What the VM was started with, from its status (None before it first ran)."""
    st = status(vm)
    res = st.get("resources") or {}
    if not res.get("cpu") or not res.get("memory"):
        return None
    return {"cpu.cores": res["cpu"].get("cores"), "cpu.coreFraction": res["cpu"].get("coreFraction"),
            "memory.size": res["memory"].get("size"),
            "virtualMachineIPAddressName": st.get("virtualMachineIPAddressName"),
            "blockDeviceRefs": [{"kind": r.get("kind"), "name": r.get("name")}
                                for r in st.get("blockDeviceRefs") or [] if not r.get("hotplugged")]}


def desired_config(vm: Obj, world) -> dict:
    """What the VM's spec asks for; a VM that names no core fraction gets its class's default, as DVP's defaulting
    webhook settles it (admission.core_fraction)."""
    sp = spec(vm)
    cpu = sp.get("cpu") or {}
    vm_class = world.get("VirtualMachineClass", None, sp.get("virtualMachineClassName") or "")
    return {"cpu.cores": cpu.get("cores"), "cpu.coreFraction": core_fraction(vm, vm_class)[0] or None,
            "memory.size": str((sp.get("memory") or {}).get("size")), "virtualMachineIPAddressName": ip_name(vm),
            "blockDeviceRefs": [{"kind": r.get("kind"), "name": r.get("name")}
                                for r in sp.get("blockDeviceRefs") or []]}


def restart_changes(vm: Obj, world) -> list[Obj]:
    """status.restartAwaitingChanges: each restart field whose spec value is not what the VM runs with."""
    now = running_config(vm)
    if now is None:
        return []
    want = desired_config(vm, world)
    return [{"operation": "replace", "path": f, "currentValue": now[f], "desiredValue": want[f]}
            for f in RESTART_FIELDS if now[f] != want[f]]


def approval_mode(vm: Obj) -> str:
    return (spec(vm).get("disruptions") or {}).get("restartApprovalMode") or "Manual"


def awaits_restart(st: Obj) -> bool:
    cond = C.find(st, C.AWAITING_RESTART)
    return bool(cond and cond.get("status") == "True")


def _await_restart(st: Obj, changes: list[Obj]) -> None:
    st["restartAwaitingChanges"] = changes
    message = "Waiting for the user to restart in order to apply the configuration changes."
    C.put(st, C.AWAITING_RESTART, True, C.R_RESTART_AWAITING, message)
    C.put(st, C.CONFIGURATION_APPLIED, False, C.R_NOT_APPLIED, message)


def _configured(st: Obj) -> None:
    """Nothing waits for a restart: DVP removes both conditions rather than setting them."""
    st.pop("restartAwaitingChanges", None)
    C.drop(st, C.AWAITING_RESTART)
    C.drop(st, C.CONFIGURATION_APPLIED)


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
        changes = restart_changes(vm, world)
        if intent in ("Stop", "Restart") or run_policy == "AlwaysOff":
            _to(st, vm, world, "Stopping")
            plan.wake(cfg.delay(KIND, "Stopping"))
        elif migrating(vm, world):
            _to(st, vm, world, "Migrating")
            source = st.get("nodeName") or node_for(vm, cfg.nodes)
            st["migrationState"] = {"startTimestamp": C.now_iso(), "endTimestamp": None, "result": "",
                                    "source": {"node": source}, "target": {"node": next_node(source, cfg.nodes)}}
            plan.wake(cfg.delay(KIND, "Migrating"))
        elif changes and approval_mode(vm) == "Automatic":
            _await_restart(st, changes)  # DVP restarts it itself: Stopping, Starting, Running as the spec says
            _to(st, vm, world, "Stopping")
            plan.wake(cfg.delay(KIND, "Stopping"))
        else:
            _running(vm, st, world, cfg, plan, apply=not changes)
            if changes:
                _await_restart(st, changes)  # Manual: until a Restart operation (or a stop and a start)
            else:
                _configured(st)
            plan.first += complete(vm, world, ("Start",))
    elif current == "Migrating":
        if wait_phase(plan, world, vm, KIND, "Migrating", cfg):
            moved = dict(st.get("migrationState") or {})
            st["nodeName"] = (moved.get("target") or {}).get("node") or st.get("nodeName")
            st["migrationState"] = {**moved, "endTimestamp": C.now_iso(), "result": "Succeeded"}
            _to(st, vm, world, "Running")
            _running(vm, st, world, cfg, plan)
            plan.first += complete(vm, world, ("Migrate",))
    elif current == "Stopping":
        if wait_phase(plan, world, vm, KIND, "Stopping", cfg):
            if intent == "Restart" or (intent != "Stop" and run_policy != "AlwaysOff" and awaits_restart(st)):
                _to(st, vm, world, "Starting")
                plan.wake(cfg.delay(KIND, "Starting"))
            else:
                st["phase"] = "Stopped"
                plan.first += complete(vm, world, ("Stop",))
            st.pop("nodeName", None)
            st["blockDeviceRefs"] = device_refs(vm, world, cfg, plan, attached=False)
            C.put(st, C.RUNNING, False, C.R_NOT_RUNNING)
            C.put(st, C.AGENT_READY, False, C.R_AGENT_NOT_READY, "the virtual machine is not running")
    elif current == "Stopped":
        if intent in ("Start", "Restart") or run_policy == "AlwaysOn":
            _to(st, vm, world, "Starting")
            plan.wake(cfg.delay(KIND, "Starting"))
        else:
            plan.first += complete(vm, world, ("Stop",))
    if st.get("phase") in ("Pending", "Starting", "Stopped"):
        _configured(st)  # the next start runs the spec as it is
    plan.status = changed(vm, st)
    return plan


def _to(st: Obj, vm: Obj, world, new_phase: str) -> None:
    st["phase"] = new_phase
    world.enter(vm, new_phase)


def _running(vm: Obj, st: Obj, world, cfg, plan: Plan, apply: bool = True) -> None:
    """Running with the spec (`apply`), or still with what it was started with (a restart is pending)."""
    st["phase"] = "Running"
    # where it runs until it stops or migrates
    st["nodeName"] = st.get("nodeName") or node_for(vm, schedulable(vm, cfg) or cfg.nodes)
    if apply:
        vmip = world.get("VirtualMachineIPAddress", meta(vm).get("namespace"), ip_name(vm))
        st["ipAddress"] = status(vmip).get("address", "")
        st["virtualMachineIPAddressName"] = ip_name(vm)
        st["networks"] = networks(vm, st["ipAddress"], cfg)
        want = desired_config(vm, world)
        st["resources"] = {"cpu": {"cores": want["cpu.cores"], "coreFraction": want["cpu.coreFraction"]},
                           "memory": {"size": want["memory.size"]}}
        st["blockDeviceRefs"] = device_refs(vm, world, cfg, plan, attached=True)
    else:
        static = [r for r in st.get("blockDeviceRefs") or [] if not r.get("hotplugged")]
        st["blockDeviceRefs"] = device_refs(vm, world, cfg, plan, attached=True, static=static)
    C.put(st, C.RUNNING, True, C.R_RUNNING)
    if cfg.guest_agent:
        C.put(st, C.AGENT_READY, True, C.R_AGENT_READY)
    else:
        C.put(st, C.AGENT_READY, False, C.R_AGENT_NOT_READY, "guest agent is not connected")
    C.put(st, C.MIGRATABLE, True, C.R_MIGRATABLE)


def static_count(vm: Obj) -> int:
    return len(spec(vm).get("blockDeviceRefs") or [])


__all__ = ["KIND", "quantity", "reconcile", "static_count"]

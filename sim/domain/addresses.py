# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineIPAddress (Auto from the pool, or Static) bound through a cluster-wide lease `ip-a-b-c-d`, with
DVP's conditions (CONTRACT.md C22); a lease whose address object is gone is deleted, so the address returns to the
pool (C23: DVP first keeps it Released for its retention time)."""

from __future__ import annotations

import functools
import ipaddress

from .. import conditions as C
from .. import indexes as ix
from ..world import deleting, meta, phase, spec, status
from .plan import Obj, Plan, Write, changed, new_status

KIND = "VirtualMachineIPAddress"
LEASE = "VirtualMachineIPAddressLease"
GROUP_VERSION = "virtualization.deckhouse.io/v1alpha2"
# DVP's Bound reasons (vmipcondition) and the lease's (vmiplcondition)
R_BOUND = "Bound"
R_LEASE_NOT_READY = "VirtualMachineIPAddressLeaseNotReady"
R_RELEASED = "Released"
RELEASED_MESSAGE = "VirtualMachineIPAddressLease is not bound to any VirtualMachineIPAddress."
NO_REMAINING = "Failed to allocate new IP address: no remaining ips."
# DVP's create-lease and bind steps while a lease is set up
LEASE_CREATED = 'The VirtualMachineIPAddressLease for the ip address "{ip}" has been created.'
LEASE_WAITING = 'Waiting for the VirtualMachineIPAddressLease "{lease}" to be bound.'
LEASE_TAKING = 'Waiting for the reference of the VirtualMachineIPAddressLease "{lease}" to be updated.'
# DVP's Attached condition (vmipcondition), set on every reconcile after Bound
R_ATTACHED, R_VM_NOT_FOUND = "Attached", "VirtualMachineNotFound"
NOT_ATTACHED = "VirtualMachineIPAddress is not attached to any virtual machine."
# DVP's vmip ProtectionHandler: on the address while a VM that is not terminating names it in its spec
PROTECTION = "virtualization.deckhouse.io/vmip-protection"


def lease_name(ip: str) -> str:
    return "ip-" + ip.replace(".", "-")


def lease_ip(name: str) -> str:
    return name.removeprefix("ip-").replace("-", ".")


def lease_ref(lease: Obj) -> tuple[str, str]:
    ref = spec(lease).get("virtualMachineIPAddressRef") or {}
    return ref.get("namespace", ""), ref.get("name", "")


@functools.cache
def pool(cidr: str) -> tuple[str, ...]:
    net = ipaddress.ip_network(cidr)
    return tuple(str(h) for h in list(net.hosts())[1:])  # the first host is the gateway


def released(lease: Obj) -> bool:
    """DVP released the lease (its address object is gone): the lease's Bound condition says so."""
    return (C.find(status(lease), C.BOUND) or {}).get("reason") == R_RELEASED


def holder_problem(lease: Obj, ns: str) -> str | None:
    """Why an address of `ns` cannot take `lease` (DVP's take-lease step), or None when it may."""
    ref_ns, ref_name = lease_ref(lease)
    name = meta(lease)["name"]
    if ref_ns and ref_ns != ns:
        return f'The VirtualMachineIPAddressLease "{name}" belongs to a different namespace.'
    if ref_name:
        return f'The VirtualMachineIPAddressLease "{name}" already has a reference to another VirtualMachineIPAddress.'
    return None


def protection_patch(vmip: Obj, world) -> dict | None:
    """DVP's protection step, run on every reconcile, deleting or not (C24): the finalizer is added while a VM
    names the address in `spec.virtualMachineIPAddressName` and is not terminating, and removed once none does;
    an address deleted while one does stays, its deletion delayed, until the VM lets it go."""
    ns, name = meta(vmip).get("namespace"), meta(vmip)["name"]
    configured = [vm for vm in world.by("VirtualMachine", ix.vm_address, ix.in_ns(ns, name))
                  if spec(vm).get("virtualMachineIPAddressName") == name and not deleting(vm)
                  and phase(vm) != "Terminating"]
    finalizers = list(meta(vmip).get("finalizers") or [])
    if not configured and PROTECTION in finalizers:
        finalizers.remove(PROTECTION)
    elif configured and PROTECTION not in finalizers and not deleting(vmip):
        finalizers.append(PROTECTION)
    else:
        return None
    return {"metadata": {"finalizers": finalizers or None, "resourceVersion": meta(vmip).get("resourceVersion")}}


def _attached(st: dict) -> None:
    """DVP's attached handler runs after the bound one, so Attached follows Bound in the list."""
    if st.get("phase") == "Attached":
        C.put(st, C.ATTACHED, True, R_ATTACHED)
    else:
        C.put(st, C.ATTACHED, False, R_VM_NOT_FOUND, NOT_ATTACHED)


def _lease_bound(lease: Obj) -> bool:
    return (C.find(status(lease), C.BOUND) or {}).get("status") == "True"


def reconcile_ip(vmip: Obj, world, cfg) -> Plan:
    plan = Plan()
    plan.patch = protection_patch(vmip, world)
    if deleting(vmip):
        return plan
    ns, name = meta(vmip).get("namespace"), meta(vmip)["name"]
    st = new_status(vmip)
    mine = next((lease for lease in world.by(LEASE, ix.lease_address, ix.in_ns(ns, name))
                 if lease_ref(lease) == (ns, name)), None)
    setting_up = None  # DVP's message while it takes a released lease over
    kept = (vmip.get("status") or {}).get("address")
    kept = kept if spec(vmip).get("type") != "Static" or kept == spec(vmip).get("staticIP") else None
    if mine is not None:
        address = lease_ip(meta(mine)["name"])
    elif kept and world.get(LEASE, None, lease_name(kept)) is None:
        # Allocated before, its lease not yet in the cache: the same address again (the create meets
        # AlreadyExists until the cache catches up), never a second lease for one address object.
        address = kept
        plan.creates.append((LEASE, _lease(address, ns, name)))
    elif spec(vmip).get("type") == "Static":
        address = spec(vmip).get("staticIP", "")
        taken = world.get(LEASE, None, lease_name(address))
        if taken is not None:
            problem = holder_problem(taken, ns)
            if problem is not None:
                # DVP's bind step shows the lease's address before the take-lease step refuses it
                st.update(phase="Pending", address=address)
                st.pop("virtualMachineName", None)
                C.put(st, C.BOUND, False, R_LEASE_NOT_READY, problem)
                _attached(st)
                plan.status = changed(vmip, st)
                return plan
            # a lease released in this namespace is taken over (guarded: its retention may end meanwhile)
            plan.first.append(Write(LEASE, taken, patch={
                "metadata": {"resourceVersion": meta(taken).get("resourceVersion")},
                "spec": {"virtualMachineIPAddressRef": {"namespace": ns, "name": name}}}))
            setting_up = LEASE_TAKING.format(lease=lease_name(address))
        else:
            plan.creates.append((LEASE, _lease(address, ns, name)))
    else:
        # An address without a lease: a lookup per address tried, not a list of every lease.
        free = world.next_free(f"ip:{cfg.ip_pool}", pool(cfg.ip_pool),
                               lambda ip: world.get(LEASE, None, lease_name(ip)) is not None)
        if free is None:
            st["phase"] = "Pending"
            C.put(st, C.BOUND, False, R_LEASE_NOT_READY, NO_REMAINING)
            _attached(st)
            plan.status = changed(vmip, st)
            return plan
        address = free
        plan.creates.append((LEASE, _lease(address, ns, name)))
    st["address"] = address
    if mine is None or not _lease_bound(mine):
        # DVP's create-lease step, then its bind step until the lease is Bound (C22); the address shows from the
        # lease's creation on here (DVP: from the next reconcile), so a lagging cache never allocates another.
        st["phase"] = "Pending"
        st.pop("virtualMachineName", None)
        message = setting_up or (LEASE_CREATED.format(ip=address) if mine is None
                                 else LEASE_WAITING.format(lease=lease_name(address)))
        C.put(st, C.BOUND, False, R_LEASE_NOT_READY, message)
        _attached(st)
        plan.status = changed(vmip, st)
        return plan
    users = [vm for vm in world.by("VirtualMachine", ix.vm_address, ix.in_ns(ns, name))
             if (spec(vm).get("virtualMachineIPAddressName") or meta(vm)["name"]) == name and not deleting(vm)]
    running = [vm for vm in users if phase(vm) == "Running"]
    if running:
        st["phase"] = "Attached"
        st["virtualMachineName"] = meta(running[0])["name"]
    else:
        st["phase"] = "Bound"
        st.pop("virtualMachineName", None)
    C.put(st, C.BOUND, True, R_BOUND)
    _attached(st)
    plan.status = changed(vmip, st)
    return plan


def _lease(address: str, ns: str, name: str) -> Obj:
    return {"apiVersion": GROUP_VERSION, "kind": LEASE, "metadata": {"name": lease_name(address)},
            "spec": {"virtualMachineIPAddressRef": {"namespace": ns, "name": name}}}


def reconcile_lease(lease: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(lease):
        return plan
    ns, name = lease_ref(lease)
    if cfg.namespace is not None and ns != cfg.namespace:
        return plan  # a simulator scoped to one namespace leaves other namespaces' leases alone
    if name and world.get(KIND, ns, name) is not None:
        st = new_status(lease)
        st["phase"] = "Bound"
        C.put(st, C.BOUND, True, R_BOUND)
        plan.status = changed(lease, st)
        return plan
    # Its address is gone: DVP releases the lease, and deletes it once it stayed Released for the retention time.
    if cfg.lease_retention > 0 and not released(lease):
        if name:
            plan.verify_missing = (KIND, ns, name)  # the cache may lag behind a just-created address
            plan.patch = {"spec": {"virtualMachineIPAddressRef": {"namespace": ns, "name": ""}}}
        st = new_status(lease)
        st["phase"] = "Released"
        C.put(st, C.BOUND, False, R_RELEASED, RELEASED_MESSAGE)
        plan.status = changed(lease, st)
        world.enter(lease, "Released")
        plan.wake(cfg.lease_retention)
        return plan
    left = cfg.lease_retention - world.since(lease, "Released")
    if left > 0:
        plan.wake(left)
        return plan
    plan.deletes.append((LEASE, "", meta(lease)["name"]))
    if name:
        plan.verify_missing = (KIND, ns, name)
    return plan


__all__ = ["PROTECTION", "holder_problem", "protection_patch", "reconcile_ip", "reconcile_lease", "released", "status"]

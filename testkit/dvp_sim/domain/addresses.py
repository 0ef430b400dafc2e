# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineIPAddress (Auto from the pool, or Static) bound through a cluster-wide lease `ip-a-b-c-d`;
a lease whose address object is gone is deleted (the address returns to the pool)."""

from __future__ import annotations

import functools
import ipaddress

from .. import conditions as C
from .. import indexes as ix
from ..world import deleting, meta, phase, spec, status
from .plan import Obj, Plan, changed, new_status

KIND = "VirtualMachineIPAddress"
LEASE = "VirtualMachineIPAddressLease"
GROUP_VERSION = "virtualization.deckhouse.io/v1alpha2"


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


def reconcile_ip(vmip: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(vmip):
        return plan
    ns, name = meta(vmip).get("namespace"), meta(vmip)["name"]
    st = new_status(vmip)
    mine = next((lease for lease in world.by(LEASE, ix.lease_address, ix.in_ns(ns, name))
                 if lease_ref(lease) == (ns, name)), None)
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
            st["phase"] = "Pending"
            C.put(st, C.BOUND, False, "AddressInUse", f"{address} is leased to {'/'.join(lease_ref(taken))}")
            plan.status = changed(vmip, st)
            return plan
        plan.creates.append((LEASE, _lease(address, ns, name)))
    else:
        # An address without a lease: a lookup per address tried, not a list of every lease.
        free = world.next_free(f"ip:{cfg.ip_pool}", pool(cfg.ip_pool),
                               lambda ip: world.get(LEASE, None, lease_name(ip)) is not None)
        if free is None:
            st["phase"] = "Pending"
            C.put(st, C.BOUND, False, "PoolExhausted", f"no free address in {cfg.ip_pool}")
            plan.status = changed(vmip, st)
            return plan
        address = free
        plan.creates.append((LEASE, _lease(address, ns, name)))
    st["address"] = address
    users = [vm for vm in world.by("VirtualMachine", ix.vm_address, ix.in_ns(ns, name))
             if (spec(vm).get("virtualMachineIPAddressName") or meta(vm)["name"]) == name and not deleting(vm)]
    running = [vm for vm in users if phase(vm) == "Running"]
    if running:
        st["phase"] = "Attached"
        st["virtualMachineName"] = meta(running[0])["name"]
    else:
        st["phase"] = "Bound"
        st.pop("virtualMachineName", None)
    C.put(st, C.BOUND, True, "Bound", f"bound to lease {lease_name(address)}")
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
    if world.get(KIND, ns, name) is None:
        plan.deletes.append((LEASE, "", meta(lease)["name"]))
        plan.verify_missing = (KIND, ns, name)  # the cache may lag behind a just-created address
        return plan
    st = new_status(lease)
    st["phase"] = "Bound"
    plan.status = changed(lease, st)
    return plan


__all__ = ["reconcile_ip", "reconcile_lease", "status"]

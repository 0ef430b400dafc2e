# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineIPAddresses and their leases as DVP binds them (sim/CONTRACT.md A16, C22, C23): a
static IP another lease holds is refused at admission, a lease DVP released but still keeps for another namespace
(or one another address took first) keeps the address Pending with DVP's reason until the lease goes, and an Auto
address waits for a free one in the pool. An address a VM names is protected from deletion until the VM lets it
go (C24)."""

from __future__ import annotations

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import Forbidden

from sim.builders import WAIT, condition, disk, gone, phase_is, vm
from sim.domain.addresses import LEASE_CREATED, LEASE_WAITING, NOT_ATTACHED, PROTECTION

VMIP_HOOK = 'admission webhook "vmip.virtualization-controller.validate.d8-virtualization" denied the request: '
NOT_READY = "VirtualMachineIPAddressLeaseNotReady"


def static(name: str, ip: str) -> dict:
    return {"metadata": {"name": name}, "spec": {"type": "Static", "staticIP": ip}}


def auto(name: str) -> dict:
    return {"metadata": {"name": name}, "spec": {"type": "Auto"}}


def lease_of(ip: str) -> str:
    return "ip-" + ip.replace(".", "-")


def kept_for(dvp, ip: str, namespace: str) -> dict:
    """A lease DVP released when its address in `namespace` went, and keeps for its retention time (C23)."""
    lease = dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, {"metadata": {"name": lease_of(ip)}, "spec": {
        "virtualMachineIPAddressRef": {"namespace": namespace, "name": ""}}})
    lease["status"] = {"phase": "Released", "conditions": [{
        "type": "Bound", "status": "False", "reason": "Released", "lastTransitionTime": "2026-01-01T00:00:00Z",
        "message": "VirtualMachineIPAddressLease is not bound to any VirtualMachineIPAddress."}]}
    return dvp.update_status(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease)


def bound_to(obj: dict | None, value: str) -> bool:
    bound = next((c for c in (obj or {}).get("status", {}).get("conditions", []) if c["type"] == "Bound"), {})
    return bound.get("status") == value


def test_a_static_address_binds_its_ip_through_a_lease(dvp, ns, sim):
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static("fixed", "10.66.254.10"), ns)
    got = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "fixed", phase_is("Bound"), WAIT, ns)
    assert got["status"]["address"] == "10.66.254.10"
    # DVP's two condition types, Bound first (its handlers' order), each with its message
    assert [{k: c[k] for k in ("type", "status", "reason", "message")} for c in got["status"]["conditions"]] == [
        {"type": "Bound", "status": "True", "reason": "Bound", "message": ""},
        {"type": "Attached", "status": "False", "reason": "VirtualMachineNotFound", "message": NOT_ATTACHED}]
    lease = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.10"), phase_is("Bound"), WAIT)
    assert lease["spec"]["virtualMachineIPAddressRef"] == {"namespace": ns, "name": "fixed"}
    assert (condition(lease, "Bound")["status"], condition(lease, "Bound")["reason"]) == ("True", "Bound")
    dvp.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, "fixed", ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.10"), gone, WAIT) is None


def test_a_static_ip_another_lease_holds_is_refused_and_a_released_one_is_admitted(dvp, ns, sim):
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static("holder", "10.66.254.20"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "holder", phase_is("Bound"), WAIT, ns)
    with pytest.raises(Forbidden) as refused:
        dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static("second", "10.66.254.20"), ns)
    assert refused.value.message == (f"{VMIP_HOOK}the VirtualMachineIPAddress cannot be created: the specified IP "
                                     "address 10.66.254.20 has already been allocated and has not been released")
    # an update that moves an address onto the held IP is refused the same way
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static("mover", "10.66.254.21"), ns)
    with pytest.raises(Forbidden) as moved:
        dvp.patch(R.VIRTUAL_MACHINE_IP_ADDRESS, "mover", {"spec": {"staticIP": "10.66.254.20"}}, ns)
    assert moved.value.message == refused.value.message
    # the holder goes: its lease with it, and the IP is free again
    dvp.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, "holder", ns)
    dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.20"), gone, WAIT)
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static("second", "10.66.254.20"), ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "second", phase_is("Bound"), WAIT, ns)


def test_a_lease_released_in_another_namespace_keeps_a_static_address_pending_until_it_goes(dvp, ns, sim):
    kept_for(dvp, "10.66.254.30", "another-project")
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static("late", "10.66.254.30"), ns)  # admitted: the lease is Released
    pending = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "late", lambda o: bound_to(o, "False"), WAIT, ns)
    assert (pending["status"]["phase"], pending["status"]["address"]) == ("Pending", "10.66.254.30")
    assert {k: condition(pending, "Bound")[k] for k in ("reason", "message")} == {
        "reason": NOT_READY,
        "message": 'The VirtualMachineIPAddressLease "ip-10-66-254-30" belongs to a different namespace.'}
    # its retention over, DVP deletes the lease (the test plays that): the address binds by itself
    dvp.delete(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.30"))
    bound = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "late", phase_is("Bound"), WAIT, ns)
    assert bound_to(bound, "True")
    lease = dvp.get(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.30"))
    assert lease["spec"]["virtualMachineIPAddressRef"] == {"namespace": ns, "name": "late"}


def test_a_released_lease_is_kept_for_the_retention_time_then_deleted(dvp, ns, start_sim):
    start_sim(lease_retention=0.5)
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static("short", "10.66.254.33"), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "short", phase_is("Bound"), WAIT, ns)
    dvp.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, "short", ns)
    lease = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.33"), phase_is("Released"), WAIT)
    assert lease["spec"]["virtualMachineIPAddressRef"] == {"namespace": ns, "name": ""}
    assert {k: condition(lease, "Bound")[k] for k in ("status", "reason", "message")} == {
        "status": "False", "reason": "Released",
        "message": "VirtualMachineIPAddressLease is not bound to any VirtualMachineIPAddress."}
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.33"), gone, WAIT) is None


def test_a_lease_released_in_the_same_namespace_is_taken_over(dvp, ns, start_sim):
    kept_for(dvp, "10.66.254.35", ns)  # before DVP runs: it would release the lease while the test writes it
    start_sim(lease_retention=3600)
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static("again", "10.66.254.35"), ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "again", phase_is("Bound"), WAIT, ns)
    lease = dvp.get(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.35"))
    assert lease["spec"]["virtualMachineIPAddressRef"] == {"namespace": ns, "name": "again"}


def test_a_static_address_whose_lease_another_address_took_first_waits_for_it(dvp, ns, start_sim):
    # Both admitted before DVP leased the IP to either; DVP gave it to "first".
    for name in ("first", "second"):
        dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, static(name, "10.66.254.40"), ns)
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, {"metadata": {"name": lease_of("10.66.254.40")}, "spec": {
        "virtualMachineIPAddressRef": {"namespace": ns, "name": "first"}}})
    start_sim()
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "first", phase_is("Bound"), WAIT, ns)
    pending = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "second", lambda o: bound_to(o, "False"), WAIT, ns)
    assert (pending["status"]["phase"], condition(pending, "Bound")["reason"]) == ("Pending", NOT_READY)
    assert condition(pending, "Bound")["message"] == ('The VirtualMachineIPAddressLease "ip-10-66-254-40" already '
                                                      "has a reference to another VirtualMachineIPAddress.")
    dvp.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, "first", ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "second", phase_is("Bound"), WAIT, ns)


def test_an_auto_address_waits_for_a_free_one_in_the_pool(dvp, ns, start_sim):
    start_sim(ip_pool="10.251.7.0/30")  # one address after the gateway
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, auto("one"), ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "one", phase_is("Bound"), WAIT, ns)["status"]["address"] == \
        "10.251.7.2"
    dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, auto("two"), ns)
    pending = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "two", lambda o: bound_to(o, "False"), WAIT, ns)
    assert pending["status"]["phase"] == "Pending" and "address" not in pending["status"]
    assert {k: condition(pending, "Bound")[k] for k in ("reason", "message")} == {
        "reason": NOT_READY, "message": "Failed to allocate new IP address: no remaining ips."}
    assert [c["type"] for c in pending["status"]["conditions"]] == ["Bound", "Attached"]  # DVP runs every handler
    dvp.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, "one", ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "two", phase_is("Bound"), WAIT, ns)["status"]["address"] == \
        "10.251.7.2"
    dvp.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, "two", ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.251.7.2"), gone, WAIT) is None


def bound_messages_until_bound(dvp, ns: str, name: str, created: dict) -> list[str]:
    """The Bound condition's message in every version of the address after `created`, until it is Bound."""
    seen: list[str] = []
    for event in dvp.watch(R.VIRTUAL_MACHINE_IP_ADDRESS, ns, field_selector={"metadata.name": name},
                           resource_version=created["metadata"]["resourceVersion"], timeout_seconds=int(WAIT)):
        bound = [c for c in (event.object.get("status") or {}).get("conditions") or [] if c["type"] == "Bound"]
        message = bound[0]["message"] if bound else None
        if message is not None and (not seen or seen[-1] != message):
            seen.append(message)
        if phase_is("Bound")(event.object):
            return seen
    raise AssertionError(f"{name} not Bound within {WAIT}s; Bound messages seen: {seen}")


def test_an_auto_address_shows_dvps_steps_until_its_lease_is_bound(dvp, ns, start_sim):
    start_sim(ip_pool="10.251.8.0/30")  # one address after the gateway
    created = dvp.create(R.VIRTUAL_MACHINE_IP_ADDRESS, auto("steps"), ns)
    seen = bound_messages_until_bound(dvp, ns, "steps", created)
    # the create-lease step, the bind step while the lease is not Bound yet (when DVP reconciles in between), Bound
    waiting = LEASE_WAITING.format(lease=lease_of("10.251.8.2"))
    assert seen in ([LEASE_CREATED.format(ip="10.251.8.2"), ""],
                    [LEASE_CREATED.format(ip="10.251.8.2"), waiting, ""]), seen
    dvp.delete(R.VIRTUAL_MACHINE_IP_ADDRESS, "steps", ns)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.251.8.2"), gone, WAIT) is None


def named_vm(name: str, address: str) -> dict:
    machine = vm(name, [f"{name}-boot"])
    machine["spec"]["virtualMachineIPAddressName"] = address
    return machine


def test_an_address_a_vm_names_is_protected_until_the_vm_lets_it_go(dvp, ns, sim):
    VMIP = R.VIRTUAL_MACHINE_IP_ADDRESS
    dvp.create(VMIP, static("node-ip", "10.66.254.70"), ns)
    dvp.create(VMIP, static("spare", "10.66.254.71"), ns)
    dvp.create(R.VIRTUAL_DISK, disk("node-boot"), ns)
    dvp.create(R.VIRTUAL_MACHINE, named_vm("node", "node-ip"), ns)
    attached = dvp.wait_for(VMIP, "node-ip", lambda o: phase_is("Attached")(o) and
                            PROTECTION in (o or {}).get("metadata", {}).get("finalizers", []), WAIT, ns)
    assert attached["metadata"]["finalizers"] == [PROTECTION]
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in attached["status"]["conditions"]] == [
        ("Bound", "True", "Bound", ""), ("Attached", "True", "Attached", "")]
    assert "finalizers" not in dvp.wait_for(VMIP, "spare", phase_is("Bound"), WAIT, ns)["metadata"]  # no VM names it

    dvp.delete(VMIP, "node-ip", ns)  # under the running VM: held, not gone
    held = dvp.get(VMIP, "node-ip", ns)
    assert held["metadata"]["deletionTimestamp"] and held["metadata"]["finalizers"] == [PROTECTION]
    assert dvp.get(R.VIRTUAL_MACHINE, "node", ns)["status"]["phase"] == "Running"

    dvp.delete(R.VIRTUAL_MACHINE, "node", ns)  # the VM lets it go: the deletion it delayed goes through
    assert dvp.wait_for(VMIP, "node-ip", gone, WAIT, ns) is None
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease_of("10.66.254.70"), gone, WAIT) is None


def test_a_vm_pointed_at_another_address_moves_the_protection_with_it(dvp, ns, sim):
    VMIP = R.VIRTUAL_MACHINE_IP_ADDRESS
    for name, ip in (("old-ip", "10.66.254.80"), ("new-ip", "10.66.254.81")):
        dvp.create(VMIP, static(name, ip), ns)
    dvp.create(R.VIRTUAL_DISK, disk("mover-boot"), ns)
    dvp.create(R.VIRTUAL_MACHINE, named_vm("mover", "old-ip"), ns)
    protected = lambda o: PROTECTION in ((o or {}).get("metadata", {}).get("finalizers") or [])  # noqa: E731
    dvp.wait_for(VMIP, "old-ip", protected, WAIT, ns)
    dvp.patch(R.VIRTUAL_MACHINE, "mover", {"spec": {"virtualMachineIPAddressName": "new-ip"}}, ns)
    dvp.wait_for(VMIP, "new-ip", protected, WAIT, ns)
    dvp.wait_for(VMIP, "old-ip", lambda o: o is not None and not protected(o), WAIT, ns)
    dvp.delete(VMIP, "old-ip", ns)  # the replaced address goes at once, as the layouts' replacement needs
    assert dvp.wait_for(VMIP, "old-ip", gone, WAIT, ns) is None

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Garbage collection by ownerReference, which kube-apiserver alone does not do, and LoadBalancer Services."""

from __future__ import annotations

import ipaddress

from dvp_common.dvp import resources as R
from dvp_sim.builders import WAIT, cloud_init, disk, gone, phase_is, vm


def owned_machine(dvp, ns, name):
    machine = dvp.create(R.VIRTUAL_MACHINE, vm(name, [f"{name}-boot"], user_data=f"cloud-init-{name}"), ns)
    dvp.create(R.VIRTUAL_DISK, disk(f"{name}-boot", "1Gi", owner=machine), ns)
    dvp.create(R.SECRET, cloud_init(f"cloud-init-{name}", owner=machine), ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, name, phase_is("Running"), WAIT, ns)
    return machine


def test_deleting_a_vm_deletes_its_disks_secret_and_address(dvp, ns, sim):
    owned_machine(dvp, ns, "owner")
    address = dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS, "owner", lambda o: (o or {}).get("status", {}).get("address"),
                           WAIT, ns)["status"]["address"]
    lease = "ip-" + address.replace(".", "-")
    assert dvp.get(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease)["spec"]["virtualMachineIPAddressRef"] == {
        "namespace": ns, "name": "owner"}
    dvp.delete(R.VIRTUAL_MACHINE, "owner", ns)
    for res, name in ((R.VIRTUAL_DISK, "owner-boot"), (R.SECRET, "cloud-init-owner"),
                      (R.VIRTUAL_MACHINE_IP_ADDRESS, "owner")):
        assert dvp.wait_for(res, name, gone, WAIT, ns) is None
    # the lease goes after its address (the simulator releases it on the address's DELETED event)
    assert dvp.wait_for(R.VIRTUAL_MACHINE_IP_ADDRESS_LEASE, lease, gone, WAIT) is None


def test_foreground_deletion_waits_for_dependents(dvp, ns, sim):
    owned_machine(dvp, ns, "fg")
    dvp.delete(R.VIRTUAL_MACHINE, "fg", ns, propagation="Foreground")
    assert dvp.wait_for(R.VIRTUAL_MACHINE, "fg", gone, WAIT, ns) is None
    assert dvp.wait_for(R.VIRTUAL_DISK, "fg-boot", gone, WAIT, ns) is None


def test_orphan_deletion_keeps_dependents_without_the_owner(dvp, ns, sim):
    owned_machine(dvp, ns, "orph")
    dvp.delete(R.VIRTUAL_MACHINE, "orph", ns, propagation="Orphan")
    assert dvp.wait_for(R.VIRTUAL_MACHINE, "orph", gone, WAIT, ns) is None
    kept = dvp.wait_for(R.VIRTUAL_DISK, "orph-boot", lambda o: not o["metadata"].get("ownerReferences"), WAIT, ns)
    assert kept["status"]["phase"] == "Ready"


def test_a_dependent_of_an_already_deleted_owner_is_collected(dvp, ns, sim):
    machine = owned_machine(dvp, ns, "late")
    dvp.delete(R.VIRTUAL_MACHINE, "late", ns)
    dvp.wait_for(R.VIRTUAL_MACHINE, "late", gone, WAIT, ns)
    dvp.create(R.VIRTUAL_DISK, disk("late-extra", "1Gi", owner=machine), ns)  # names a uid that is gone
    assert dvp.wait_for(R.VIRTUAL_DISK, "late-extra", gone, WAIT, ns) is None


def test_load_balancer_service_gets_an_ingress_address(dvp, ns, sim):
    svc = {"metadata": {"name": "a0123456789abcdef0123456789abcde"},
           "spec": {"type": "LoadBalancer", "selector": {"dvp.deckhouse.io/a0123": "loadbalancer"},
                    "ports": [{"name": "http", "port": 80, "targetPort": 30080, "protocol": "TCP"}]}}
    dvp.create(R.SERVICE, svc, ns)
    lb = dvp.wait_for(R.SERVICE, svc["metadata"]["name"],
                      lambda o: o and o.get("status", {}).get("loadBalancer", {}).get("ingress"), WAIT, ns)
    ip = lb["status"]["loadBalancer"]["ingress"][0]["ip"]
    assert ipaddress.ip_address(ip) in ipaddress.ip_network("192.0.2.0/24")
    plain = {"metadata": {"name": "plain"}, "spec": {"ports": [{"port": 80}]}}
    dvp.create(R.SERVICE, plain, ns)
    second = dict(svc, metadata={"name": "second"})
    dvp.create(R.SERVICE, second, ns)
    other = dvp.wait_for(R.SERVICE, "second",
                         lambda o: o and o.get("status", {}).get("loadBalancer", {}).get("ingress"), WAIT, ns)
    assert other["status"]["loadBalancer"]["ingress"][0]["ip"] != ip
    assert dvp.get(R.SERVICE, "plain", ns).get("status", {}).get("loadBalancer", {}) == {}

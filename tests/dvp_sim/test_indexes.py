# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Events and reconciles read their related objects through the informer indexes, never a list of the kind."""

from __future__ import annotations

import pytest
from dvp_common.runtime.informer import key_of

from sim import SimConfig, indexes
from sim.builders import cloud_init, disk, vm, vmbda, vmop
from sim.simulator import RECONCILERS
from sim.wakeups import related
from sim.world import KINDS, World

NS = "ns"
MACHINES = 50
MACHINE_7 = {"m7", "m7-boot", "m7-data", "m7-restart", "ci-m7", "ip-10-66-0-9"}


def machines(n: int) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {k: [] for k in KINDS}
    for i in range(n):
        v = vm(f"m{i}", [f"m{i}-boot"], user_data=f"ci-m{i}")
        v["status"] = {"phase": "Running", "blockDeviceRefs": [
            {"kind": "VirtualDisk", "name": f"m{i}-boot", "attached": True},
            {"kind": "VirtualDisk", "name": f"m{i}-data", "attached": True,
             "virtualMachineBlockDeviceAttachmentName": f"m{i}-data"}]}
        out["VirtualMachine"].append(v)
        for name in (f"m{i}-boot", f"m{i}-data"):
            d = disk(name, owner=None)
            d["status"] = {"phase": "Ready", "capacity": "1Gi"}
            out["VirtualDisk"].append(d)
        out["Secret"].append(cloud_init(f"ci-m{i}"))
        att = vmbda(f"m{i}-data", f"m{i}", f"m{i}-data")
        att["status"] = {"phase": "Attached"}
        out["VirtualMachineBlockDeviceAttachment"].append(att)
        out["VirtualMachineOperation"].append(vmop(f"m{i}-restart", f"m{i}", "Restart"))
        out["VirtualMachineIPAddress"].append({"kind": "VirtualMachineIPAddress", "metadata": {"name": f"m{i}"},
                                               "spec": {"type": "Auto"}, "status": {"phase": "Attached"}})
        out["VirtualMachineIPAddressLease"].append({
            "kind": "VirtualMachineIPAddressLease", "metadata": {"name": f"ip-10-66-0-{i + 2}"},
            "spec": {"virtualMachineIPAddressRef": {"namespace": NS, "name": f"m{i}"}}})
    for kind, objs in out.items():
        for obj in objs:
            if KINDS[kind].namespaced:
                obj["metadata"]["namespace"] = NS
            obj["metadata"]["uid"] = f"uid-{kind}-{obj['metadata']['name']}"
            obj["metadata"]["resourceVersion"] = "1"
    return out


def no_scan(kind: str):
    def scan() -> list[dict]:
        raise AssertionError(f"{kind} listed: an event or a reconcile scanned the kind")
    return scan


def indexed_world(objs: dict[str, list[dict]]) -> World:
    """A World whose lookups and indexes answer from dicts (as the informers' do) and whose lists fail."""
    by_key = {k: {key_of(o): o for o in objs[k]} for k in KINDS}
    index: dict[tuple[str, str, str], list[dict]] = {}
    for kind in KINDS:
        for fn in indexes.of(kind):
            for obj in objs[kind]:
                for value in fn(obj):
                    index.setdefault((kind, fn.__name__, value), []).append(obj)
    return World({k: no_scan(k) for k in KINDS}, lookups={k: by_key[k].get for k in KINDS},
                 indexed={k: (lambda name, value, k=k: index.get((k, name, value), [])) for k in KINDS})


@pytest.mark.parametrize("kind", ["VirtualMachine", "VirtualDisk", "VirtualMachineBlockDeviceAttachment",
                                  "VirtualMachineOperation", "VirtualMachineIPAddress", "Secret"])
def test_an_event_and_its_reconciles_read_only_indexes_and_lookups(kind):
    objs = machines(MACHINES)
    world, cfg = indexed_world(objs), SimConfig()
    obj = next(o for o in objs[kind] if o["metadata"]["name"] in ("m7", "m7-data", "m7-restart", "ci-m7"))
    woken = set(related(world, cfg, kind, [obj, obj]))
    assert woken and {k[2] for k in woken} <= MACHINE_7  # found by index: none of the 49 other machines
    for key in woken | ({(kind, NS, obj["metadata"]["name"])} if kind in RECONCILERS else set()):
        target = world.get(key[0], key[1], key[2])
        if target is not None and key[0] in RECONCILERS:
            RECONCILERS[key[0]](target, world, cfg)


def test_the_index_of_a_disk_finds_the_vm_attaching_it_as_the_scan_does():
    objs = machines(3)
    scanned = World({k: (lambda o=objs[k]: list(o)) for k in KINDS})
    assert [o["metadata"]["name"] for o in indexed_world(objs).by(
        "VirtualMachine", indexes.vm_attached, indexes.ref(NS, "VirtualDisk", "m1-data"))] == ["m1"]
    assert [o["metadata"]["name"] for o in scanned.by(
        "VirtualMachine", indexes.vm_attached, indexes.ref(NS, "VirtualDisk", "m1-data"))] == ["m1"]


def test_pool_allocation_goes_round_from_the_last_address_taken():
    world = World({k: no_scan(k) for k in KINDS})
    hosts = ("10.0.0.2", "10.0.0.3", "10.0.0.4")
    taken: set[str] = set()
    tried: list[str] = []

    def is_taken(ip: str) -> bool:
        tried.append(ip)
        return ip in taken

    for _ in hosts:
        taken.add(world.next_free("p", hosts, is_taken))
    assert taken == set(hosts) and tried == list(hosts)  # each allocation looked at one address, not all before it
    assert world.next_free("p", hosts, is_taken) is None  # exhausted
    taken.discard("10.0.0.3")  # released: found again on the way round
    assert world.next_free("p", hosts, is_taken) == "10.0.0.3"
    assert world.next_free("other", hosts, lambda ip: False) == "10.0.0.2"  # each pool keeps its own place


@pytest.mark.parametrize(("spec", "reused"), [({"type": "Auto"}, True),
                                              ({"type": "Static", "staticIP": "10.66.0.40"}, True),
                                              ({"type": "Static", "staticIP": "10.66.0.41"}, False)])
def test_an_address_whose_lease_the_cache_has_not_seen_yet_keeps_its_address(spec, reused):
    """The address object says 10.66.0.40 (written through), its lease is not in the cache yet: the same address is
    leased again, never a second one (which made the VM's address flip between the two)."""
    objs = machines(1)
    objs["VirtualMachineIPAddressLease"] = []
    objs["VirtualMachineIPAddress"][0].update(spec=spec, status={"phase": "Bound", "address": "10.66.0.40"})
    world = indexed_world(objs)
    plan = RECONCILERS["VirtualMachineIPAddress"](objs["VirtualMachineIPAddress"][0], world,
                                                 SimConfig(namespace=NS))
    want = "10.66.0.40" if reused else "10.66.0.41"
    assert [(kind, body["metadata"]["name"]) for kind, body in plan.creates] == \
        [("VirtualMachineIPAddressLease", f"ip-{want.replace('.', '-')}")]
    assert plan.status["address"] == want

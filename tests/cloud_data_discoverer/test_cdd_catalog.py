# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The InstanceTypesCatalog mapping (domain.catalog): each sizing policy gives its largest admitted VM.

"Admitted" is judged by the DVP simulator's own sizing rule (sim.domain.admission.sizing, DVP's validator as
sim/CONTRACT.md A3-A5 has it), an oracle written apart from the mapping; DVP's CPU topology rule
(which the simulator does not play) is checked here on its own.
"""

from __future__ import annotations

import pytest
from cloud_data_discoverer.domain import catalog, instance_types
from dvp_common.quantity import quantity_bytes
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.domain import admission

GI = 1 << 30
MI = 1 << 20


def vmc(name: str, *policies: dict) -> dict:
    return {"metadata": {"name": name}, "spec": {"sizingPolicies": list(policies)} if policies else {}}


def published(*classes: dict) -> tuple[list[dict], list[catalog.LeftOut]]:
    types, skipped = instance_types.catalog(classes)
    assert skipped == []
    entries, left_out = catalog.build(types)
    return catalog.instance_types(entries), left_out


def admitted(vm_class: dict, cpu: int, memory: str, fraction: str | None = None) -> bool:
    vm = {"metadata": {"name": "vm"}, "spec": {"virtualMachineClassName": vm_class["metadata"]["name"],
                                               "cpu": {"cores": cpu, "coreFraction": fraction or "100%"},
                                               "memory": {"size": memory}}}
    return admission.sizing(vm, vm_class) is None


def test_one_entry_per_policy_the_largest_it_admits():
    small = vmc("small", {"cores": {"min": 1, "max": 4}, "memory": {"min": "1Gi", "max": "8Gi", "step": "512Mi"},
                          "coreFractions": [5, 100]})
    big = vmc("big", {"cores": {"min": 1, "max": 16}, "memory": {"perCore": {"min": "1Gi", "max": "4Gi"}}},
              {"cores": {"min": 17, "max": 63}, "memory": {"max": "128Gi"}})
    assert published(small, big) == ([
        {"name": "big-1-16c", "cpu": "16", "memory": "64Gi", "rootDisk": "0"},
        {"name": "big-17-63c", "cpu": "60", "memory": "128Gi", "rootDisk": "0"},  # 63, 62, 61: not 4 sockets
        {"name": "small-1-4c", "cpu": "4", "memory": "8Gi", "rootDisk": "0"},
    ], [])


@pytest.mark.parametrize(("policy", "cpu", "memory"), [
    ({"cores": {"min": 2, "max": 10, "step": 4}, "memory": {"max": "4Gi"}}, 10, "4Gi"),  # 2, 6, 10
    ({"cores": {"min": 2, "max": 12, "step": 4}, "memory": {"max": "4Gi"}}, 10, "4Gi"),  # 12 is off the grid
    ({"cores": {"min": 17, "max": 33}, "memory": {"max": "4Gi"}}, 32, "4Gi"),  # above 32: a multiple of 4
    ({"cores": {"min": 65, "max": 79}, "memory": {"max": "4Gi"}}, 72, "4Gi"),  # above 64: a multiple of 8
    ({"cores": {"min": 1, "max": 4}, "memory": {"max": "6Gi", "perCore": {"max": "2Gi"}}}, 4, "6Gi"),
    ({"cores": {"min": 1, "max": 4}, "memory": {"max": "16Gi", "perCore": {"max": "2Gi"}}}, 4, "8Gi"),
    # the per-core cap (9Gi) is on the 2Gi grid from 1Gi, and 3Gi a core is the per-core maximum itself
    ({"cores": {"min": 1, "max": 3}, "memory": {"min": "1Gi", "max": "16Gi", "step": "2Gi",
                                                "perCore": {"max": "3Gi"}}}, 3, "9Gi"),
    ({"cores": {"min": 1, "max": 4}, "memory": {"min": "1Gi", "max": "10Gi", "step": "2Gi"}}, 4, "10Gi"),
    # 10000Mi (the per-core cap) is off the 1Gi grid; 9Gi is on it but 2304Mi a core is off; 2Gi a core is not
    ({"cores": {"min": 1, "max": 4}, "memory": {"max": "20Gi", "step": "1Gi", "perCore": {"max": "2500Mi"}}},
     4, "8Gi"),
])
def test_largest_size_rule(policy, cpu, memory):
    cls = vmc("c", policy)
    [entry], left_out = published(cls)
    assert left_out == [] and (entry["cpu"], entry["memory"]) == (str(cpu), memory)
    assert admitted(cls, cpu, memory)


def test_what_has_no_largest_size_is_left_out_and_said():
    classes = [vmc("any"), vmc("unbounded", {"cores": {"min": 1, "max": 8}}),
               vmc("contradiction", {"cores": {"min": 1, "max": 4}, "memory": {
                   "min": "1Gi", "max": "16Gi", "step": "2Gi", "perCore": {"max": "2Gi"}}}),
               vmc("twice", {"cores": {"min": 1, "max": 2}, "memory": {"max": "1Gi"}},
                   {"cores": {"min": 1, "max": 2}, "memory": {"max": "2Gi"}})]
    assert published(*classes) == ([{"name": "twice-1-2c", "cpu": "2", "memory": "1Gi", "rootDisk": "0"}], [
        catalog.LeftOut('VirtualMachineClass "any" policy 0',
                        "no sizing policy: any size is admitted, there is no largest"),
        catalog.LeftOut('VirtualMachineClass "contradiction" policy 0',
                        "no memory size at 4 cores meets every bound of the policy"),
        catalog.LeftOut('VirtualMachineClass "twice" policy 1', "2 cores fall under the earlier policy 0"),
        catalog.LeftOut('VirtualMachineClass "unbounded" policy 0',
                        "no upper memory bound: any size is admitted, there is no largest"),
    ])
    # the contradiction is real: at 4 cores no size is both on the 2Gi grid from 1Gi and 2Gi per core
    assert not any(admitted(classes[2], 4, f"{m}Mi") for m in range(1024, 16 * 1024 + 1, 1024))


def test_same_compares_amounts_not_texts():
    want = [{"name": "a", "cpu": "4", "memory": "8Gi", "rootDisk": "0"}]
    assert catalog.same([{"name": "a", "cpu": 4, "memory": "8192Mi", "rootDisk": "0"}], want)
    assert not catalog.same([{"name": "a", "cpu": "4", "memory": "8193Mi", "rootDisk": "0"}], want)
    assert not catalog.same([{"name": "b", "cpu": "4", "memory": "8Gi", "rootDisk": "0"}], want)
    assert not catalog.same([{"name": "a", "cpu": "4", "memory": "8Gi"}], want)
    assert not catalog.same([{"name": "a", "cpu": "4", "memory": "lots", "rootDisk": "0"}], want)
    assert not catalog.same(None, want) and not catalog.same([], want) and catalog.same([], [])


def _mi(n: int) -> str:
    return f"{n}Mi"


@st.composite
def policies(draw) -> dict:
    low = draw(st.integers(1, 80))
    high = draw(st.integers(low + 1, 160))
    cores = {"min": low, "max": high}
    if draw(st.booleans()):
        cores["step"] = draw(st.integers(1, high - 1))
    memory: dict = {}
    if draw(st.booleans()):
        memory["min"] = _mi(draw(st.integers(1, 4096)))
    if draw(st.booleans()):
        memory["max"] = _mi(draw(st.integers(1, 1 << 18)))
    if draw(st.booleans()):
        memory["step"] = _mi(draw(st.sampled_from([1, 128, 512, 1000, 1024, 3000])))
    if draw(st.booleans()):
        per_core = {"max": _mi(draw(st.integers(1, 16384)))}
        if draw(st.booleans()):
            per_core["min"] = _mi(draw(st.integers(1, 4096)))
        memory["perCore"] = per_core
    policy = {"cores": cores, "coreFractions": [10, 100]}
    if memory:
        policy["memory"] = memory
    return policy


@settings(max_examples=200, deadline=None)
@given(st.lists(policies(), min_size=1, max_size=4))
def test_every_entry_is_admitted_named_and_sorted(drawn):
    out, left_out = published(vmc("gen", *drawn))
    assert [e["name"] for e in out] == sorted({e["name"] for e in out})  # sorted, one per name
    assert len(out) + len(left_out) == len(drawn)
    by_range = {f"gen-{p['cores']['min']}-{p['cores']['max']}c": p for p in reversed(drawn)}
    for e in out:
        policy = by_range[e["name"]]
        cpu, memory = int(e["cpu"]), e["memory"]
        assert e["rootDisk"] == "0" and quantity_bytes(memory) > 0
        assert policy["cores"]["min"] <= cpu <= policy["cores"]["max"] and catalog.topology_allows(cpu)
        assert (cpu - policy["cores"]["min"]) % policy["cores"].get("step", 1) == 0
        # DVP applies the first policy whose range holds the cores: the whole class judges the entry
        assert admitted(vmc("gen", *drawn), cpu, memory, "10%")
        # nothing above it on the core grid is a legal count
        step = policy["cores"].get("step", 1)
        assert not any(catalog.topology_allows(c) for c in range(cpu + step, policy["cores"]["max"] + 1, step))
        limits = policy.get("memory") or {}
        if "step" not in limits and limits.keys() & {"max", "perCore"}:
            # no grid: the tightest cap is the size, and one byte more (a core) is refused
            caps = [quantity_bytes(limits[k]) for k in ("max",) if k in limits]
            caps += [quantity_bytes(limits["perCore"]["max"]) * cpu] if "perCore" in limits else []
            assert quantity_bytes(memory) == min(caps)
            assert not admitted(vmc("gen", policy), cpu, str(quantity_bytes(memory) + cpu), "10%")
    ranges = sorted((p["cores"]["min"], p["cores"]["max"]) for p in drawn)
    if all(a[1] < b[0] for a, b in zip(ranges, ranges[1:], strict=False)):
        # ranges apart, as DVP asks: the catalog follows from the policies, whatever their order in the class
        assert published(vmc("gen", *reversed(drawn)))[0] == out


def test_a_core_range_past_dvps_bound_is_left_out():
    assert published(vmc("huge", {"cores": {"min": 1, "max": 1025}, "memory": {"max": "1Gi"}})) == (
        [], [catalog.LeftOut('VirtualMachineClass "huge" policy 0', "cores.max is above DVP's 1024")])
    assert published(vmc("top", {"cores": {"min": 1, "max": 1024}, "memory": {"max": "1Ti"}}))[0] == [
        {"name": "top-1-1024c", "cpu": "1024", "memory": "1Ti", "rootDisk": "0"}]

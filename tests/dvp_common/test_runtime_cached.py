# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Cached reads: hits from the informer, misses (e.g. a foreign same-named object) from the API."""

from __future__ import annotations

import threading

import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube import NotFound
from dvp_common.runtime.cached import CachedClient as CachedApi

from testkit.recorded import RecordedApi


class StubInformer:
    def __init__(self, objects: dict[str, dict], synced: bool = True) -> None:
        self.objects, self.synced = objects, threading.Event()
        if synced:
            self.synced.set()

    def get(self, key: str):
        return self.objects.get(key)


def test_hit_miss_and_unsynced():
    api = RecordedApi(namespaces=("ns",))
    api.put(r.VIRTUAL_MACHINE, {"metadata": {"name": "foreign", "labels": {}}}, "ns")
    cached_vm = {"metadata": {"name": "ours", "namespace": "ns"}}
    informer = StubInformer({"ns/ours": cached_vm})
    cached = CachedApi(api.client, {r.VIRTUAL_MACHINE: informer})
    got = cached.get(r.VIRTUAL_MACHINE, "ours", "ns")
    assert got == cached_vm and got is not cached_vm  # a copy: callers may mutate it
    assert api.count("get") == 0 and cached.hits == 1
    assert cached.get(r.VIRTUAL_MACHINE, "foreign", "ns")["metadata"]["name"] == "foreign"
    assert api.count("get") == 1
    informer.synced.clear()
    api.put(r.VIRTUAL_MACHINE, {"metadata": {"name": "ours"}}, "ns")
    cached.get(r.VIRTUAL_MACHINE, "ours", "ns")
    assert api.count("get") == 2  # not synced yet: the API answers


def test_cluster_scoped_keys_and_writes_go_to_the_api():
    api = RecordedApi(namespaces=("ns",))
    vmc = {"metadata": {"name": "generic"}}
    cached = CachedApi(api.client, {r.VIRTUAL_MACHINE_CLASS: StubInformer({"generic": vmc})})
    assert cached.get(r.VIRTUAL_MACHINE_CLASS, "generic") == vmc
    cached.create(r.VIRTUAL_DISK, {"metadata": {"name": "d"}}, "ns")
    assert api.count("create") == 1 and api.peek(r.VIRTUAL_DISK, "d", "ns") is not None


def test_list_from_the_cache_only_under_the_informers_selector():
    api = RecordedApi(namespaces=("ns",))
    ours = {"dvp.deckhouse.io/cluster-uuid": "u", "dvp.deckhouse.io/component": "capdvp"}
    disks = [{"metadata": {"name": n, "namespace": "ns", "labels": {**ours, "dvp.deckhouse.io/hostname": h}}}
             for n, h in (("a-boot", "a"), ("b-boot", "b"))]
    informer = StubInformer({f"ns/{d['metadata']['name']}": d for d in disks})
    informer.namespace, informer.label_selector, informer.resource_version = "ns", ours, "7"
    informer.items = lambda: list(informer.objects.values())
    cached = CachedApi(api.client, {r.VIRTUAL_DISK: informer})
    got = cached.list(r.VIRTUAL_DISK, "ns", label_selector={**ours, "dvp.deckhouse.io/hostname": "a"})
    assert [d["metadata"]["name"] for d in got.items] == ["a-boot"] and api.count("list") == 0
    cached.list(r.VIRTUAL_DISK, "ns", label_selector={"dvp.deckhouse.io/hostname": "a"})  # wider than the cache
    cached.list(r.VIRTUAL_DISK, "other", label_selector=ours)  # another namespace
    assert api.count("list") == 2
    got = cached.list_all(r.VIRTUAL_DISK, "ns", label_selector=ours)  # as dvp_common.dvp's kinds list
    assert [d["metadata"]["name"] for d in got.items] == ["a-boot", "b-boot"] and api.count("list") == 2


def test_a_found_class_is_remembered_for_its_seconds_and_absence_never():
    api, now = RecordedApi(namespaces=("ns",)), [100.0]
    cached = CachedApi(api.client, {}, remember={r.VIRTUAL_MACHINE_CLASS: 10.0}, clock=lambda: now[0])
    with pytest.raises(NotFound):
        cached.get(r.VIRTUAL_MACHINE_CLASS, "generic")
    api.put(r.VIRTUAL_MACHINE_CLASS, {"metadata": {"name": "generic"}})
    assert cached.get(r.VIRTUAL_MACHINE_CLASS, "generic")["metadata"]["name"] == "generic"  # not NotFound again
    got = cached.get(r.VIRTUAL_MACHINE_CLASS, "generic")
    got["metadata"]["name"] = "mutated"  # a copy: callers may mutate it
    assert cached.get(r.VIRTUAL_MACHINE_CLASS, "generic")["metadata"]["name"] == "generic"
    assert api.count("get") == 2 and cached.hits == 2
    now[0] += 10.0
    cached.get(r.VIRTUAL_MACHINE_CLASS, "generic")
    assert api.count("get") == 3  # expired: the API answers again
    api.put(r.VIRTUAL_DISK, {"metadata": {"name": "d"}}, "ns")
    cached.get(r.VIRTUAL_DISK, "d", "ns")
    cached.get(r.VIRTUAL_DISK, "d", "ns")
    assert api.count("get") == 5  # kinds not listed are never remembered

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import threading
import time

import pytest
from dvp_common.kube import Gone, KubeClient, RetryPolicy
from dvp_common.kube.resources import CONFIG_MAP
from dvp_common.runtime import Informer
from dvpc_kit import TOKEN

NS = "ns1"


def cm(name, value="1"):
    return {"metadata": {"name": name, "namespace": NS}, "data": {"v": value}}


@pytest.fixture
def setup(api, fake_time):
    api.max_watch_seconds = 0.2
    client = KubeClient.from_url(api.url, token=TOKEN, retry=RetryPolicy(base=0.01, cap=0.02))
    informer = Informer(client, CONFIG_MAP, NS, resync_period=60, clock=fake_time.clock)
    seen = []
    informer.add_handlers(on_add=lambda o: seen.append(("add", o["metadata"]["name"])),
                          on_update=lambda old, new: seen.append(("update", new["metadata"]["name"],
                                                                  old["data"]["v"], new["data"]["v"])),
                          on_delete=lambda o: seen.append(("delete", o["metadata"]["name"])))
    return client, informer, seen


def test_list_then_watch_events(setup, api):
    client, informer, seen = setup
    api.put(CONFIG_MAP, cm("a"))
    informer.step()
    assert informer.synced.is_set() and seen == [("add", "a")] and informer.keys() == ["ns1/a"]
    api.put(CONFIG_MAP, cm("a", "2"))
    api.put(CONFIG_MAP, cm("b"))
    api.remove(CONFIG_MAP, "a", NS)
    informer.step()
    assert seen[1:] == [("update", "a", "1", "2"), ("add", "b"), ("delete", "a")]
    assert informer.keys() == ["ns1/b"] and informer.get("ns1/b")["data"] == {"v": "1"}
    informer.step()  # an empty watch session resumes from the last version: no re-list
    assert informer.lists == 1 and client.metrics.total("list") == 1


def test_gone_relists_and_diffs_the_cache(setup, api):
    client, informer, seen = setup
    api.put(CONFIG_MAP, cm("a"))
    api.put(CONFIG_MAP, cm("b"))
    informer.step()
    seen.clear()
    informer.resource_version = "1"  # as if we had been away for long
    api.remove(CONFIG_MAP, "a", NS)
    api.put(CONFIG_MAP, cm("b", "2"))
    api.put(CONFIG_MAP, cm("c"))
    api.compact()
    with pytest.raises(Gone):
        informer.step()
    informer.step()
    assert informer.lists == 2
    assert sorted(seen) == [("add", "c"), ("delete", "a"), ("update", "b", "1", "2")]


def test_resync_replays_the_cache(setup, api, fake_time):
    _, informer, seen = setup
    api.put(CONFIG_MAP, cm("a"))
    informer.step()
    fake_time.now += 61
    informer.step()
    assert seen == [("add", "a"), ("update", "a", "1", "1")]


def test_run_keeps_up_until_stopped(setup, api):
    _, informer, seen = setup
    stop = threading.Event()
    thread = threading.Thread(target=informer.run, args=(stop,))
    thread.start()
    try:
        assert informer.synced.wait(5)
        api.put(CONFIG_MAP, cm("late"))
        for _ in range(100):
            if informer.get("ns1/late"):
                break
            stop.wait(0.05)
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive() and ("add", "late") in seen


def test_stop_ends_a_quiet_watch_at_once(setup, api):
    _, informer, _ = setup
    api.max_watch_seconds = 120  # a watch that would stay open and silent for two minutes
    informer.watch_timeout = 120
    informer.resync_period = 0
    stop = threading.Event()
    thread = threading.Thread(target=informer.run, args=(stop,))
    thread.start()
    try:
        assert informer.synced.wait(5)
        for _ in range(100):  # until the watch is open
            if informer._watch is not None:
                break
            stop.wait(0.02)
    finally:
        started = time.monotonic()
        stop.set()
        thread.join(10)
    assert not thread.is_alive() and time.monotonic() - started < 5


def test_closing_a_watch_from_another_thread_ends_its_iteration(setup, api):
    client, _, _ = setup
    api.max_watch_seconds = 120
    watch = client.watch(CONFIG_MAP, NS, resource_version=client.list(CONFIG_MAP, NS).resource_version)
    threading.Timer(0.2, watch.close).start()
    started = time.monotonic()
    assert list(watch) == []
    assert time.monotonic() - started < 5


def test_a_failing_handler_does_not_stop_the_others(setup, api, caplog):
    _, informer, seen = setup
    informer._handlers.insert(0, (lambda o: 1 / 0, None, None))
    api.put(CONFIG_MAP, cm("a"))
    informer.step()
    assert seen == [("add", "a")] and informer.handler_errors == 1
    assert "ConfigMap handler failed for ns1/a" in caplog.text


def test_run_backs_off_on_api_errors_until_the_resource_appears(api, fake_time):
    client = KubeClient.from_url(api.url, token=TOKEN, retry=RetryPolicy(base=1, cap=8, jitter=False))
    api.script("GET", "/configmaps", 404, {"reason": "NotFound", "message": "the server could not find it"}, times=3)
    informer = Informer(client, CONFIG_MAP, NS, watch_timeout=1)
    stop = threading.Event()
    delays = []

    def sleep(seconds):
        delays.append(seconds)
        if len(delays) == 3:
            stop.set()

    informer.run(stop, sleep=sleep)
    assert delays == [1, 2, 4]
    assert informer.last_error == 'list ConfigMap in namespace "ns1": 404 NotFound: the server could not find it'


def test_an_index_follows_adds_updates_deletes_and_relists(setup, api):
    client, informer, _ = setup
    api.put(CONFIG_MAP, cm("a", "x"))
    informer.step()
    informer.add_index("v", lambda o: [o["data"]["v"]])  # added once objects are cached: built from the cache
    assert [o["metadata"]["name"] for o in informer.by_index("v", "x")] == ["a"]
    api.put(CONFIG_MAP, cm("b", "x"))
    informer.step()
    assert [o["metadata"]["name"] for o in informer.by_index("v", "x")] == ["a", "b"]
    assert (informer.count("v", "x"), informer.count("v", "y")) == (2, 0)
    api.put(CONFIG_MAP, cm("a", "y"))
    api.remove(CONFIG_MAP, "b", NS)
    informer.step()
    assert informer.by_index("v", "x") == [] and [o["metadata"]["name"] for o in informer.by_index("v", "y")] == ["a"]
    assert (informer.count("v", "x"), informer.count("v", "y")) == (0, 1)
    informer.resource_version = "1"
    api.put(CONFIG_MAP, cm("c", "y"))
    api.compact()
    with pytest.raises(Gone):
        informer.step()
    informer.step()  # the re-list rebuilds the index
    assert [o["metadata"]["name"] for o in informer.by_index("v", "y")] == ["a", "c"]


def test_an_assumed_write_is_seen_until_the_watch_brings_it_and_never_replaces_a_newer_one(setup, api):
    client, informer, seen = setup
    informer.add_index("v", lambda o: [o["data"]["v"]])
    api.put(CONFIG_MAP, cm("a"))
    informer.step()
    written = client.patch(CONFIG_MAP, "a", {"data": {"v": "2"}}, NS)
    informer.assume(written)  # before any event: the cache and its index show the write, no handler ran
    assert informer.get("ns1/a")["data"] == {"v": "2"} and informer.count("v", "2") == 1
    assert seen == [("add", "a")]
    stale = {**written, "metadata": {**written["metadata"], "resourceVersion": "1"}, "data": {"v": "old"}}
    informer.assume(stale)  # an older version never replaces a newer one
    assert informer.get("ns1/a")["data"] == {"v": "2"}
    created = client.create(CONFIG_MAP, cm("b"), NS)
    informer.assume(created)
    assert informer.keys() == ["ns1/a", "ns1/b"]
    informer.step()  # the watch brings both: handlers run then, from the assumed versions
    assert seen[1:] == [("update", "a", "2", "2"), ("update", "b", "1", "1")]


def test_last_handled_names_the_object_and_version_the_handlers_saw_last(setup, api):
    _, informer, seen = setup
    assert informer.last_handled == ("", "")
    api.put(CONFIG_MAP, cm("a"))
    api.put(CONFIG_MAP, cm("b"))
    informer.step()
    assert informer.last_handled == ("ns1/b", informer.get("ns1/b")["metadata"]["resourceVersion"])
    api.put(CONFIG_MAP, cm("a", "2"))
    informer.step()
    assert seen[-1] == ("update", "a", "1", "2")
    assert informer.last_handled == ("ns1/a", informer.get("ns1/a")["metadata"]["resourceVersion"])

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Watches and watch-based waits: resume on drops, re-list on 410, bounded deadlines, injected faults, a line
without end from a hostile server."""

from __future__ import annotations

import threading
import time
import tracemalloc

import pytest
from dvp_common.kube import (
    Fault,
    Gone,
    KubeClient,
    RandomFaults,
    RetryPolicy,
    ScriptedFaults,
    Transient,
    WaitTimeout,
)
from dvp_common.kube.resources import CONFIG_MAP, POD
from dvp_common.kube.transport import MAX_EVENT_LINE
from dvpc_kit import TOKEN, OnWatch

from testkit.harness.hostile_http import HostileHTTP, endless_watch

NS = "ns1"


def pod(name, phase=None):
    """A Pod: the watches and waits below follow a status (ConfigMaps have none)."""
    obj = {"metadata": {"name": name, "namespace": NS}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    if phase:
        obj["status"] = {"phase": phase}
    return obj


@pytest.fixture
def client(api):
    return KubeClient.from_url(api.url, token=TOKEN, retry=RetryPolicy(base=0.01, cap=0.05))


def test_watch_streams_events_from_a_resource_version(client, api):
    api.max_watch_seconds = 0.3
    rv = client.list(POD, NS).resource_version
    api.put(POD, pod("a"))
    api.put(POD, pod("a", "Ready"))
    api.remove(POD, "a", NS)
    events = list(client.watch(POD, NS, resource_version=rv, timeout_seconds=5))
    assert [(e.type, e.name) for e in events] == [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a")]
    assert events[1].object["status"] == {"phase": "Ready"} and events[1].object["kind"] == "Pod"
    _, path, query = api.requests[-1]
    assert query["watch"] == ["1"] and query["timeoutSeconds"] == ["5"] and query["allowWatchBookmarks"] == ["true"]


def test_watch_from_a_compacted_version_raises_gone(client, api):
    api.put(POD, pod("a"))
    api.compact()
    with pytest.raises(Gone):
        list(client.watch(POD, NS, resource_version="1", timeout_seconds=1))


def test_injected_watch_drop_raises_transient(api):
    api.max_watch_seconds = 0.3
    client = KubeClient.from_url(api.url, token=TOKEN, faults=ScriptedFaults([Fault(drop_watch_after=1)],
                                                                                match=lambda r: r.verb == "watch"))
    rv = client.list(POD, NS).resource_version
    api.put(POD, pod("a"))
    api.put(POD, pod("b"))
    seen = []
    with pytest.raises(Transient, match="watch dropped"):
        for event in client.watch(POD, NS, resource_version=rv):
            seen.append(event.name)
    assert seen == ["a"]


def test_wait_for_returns_at_once_when_the_predicate_already_holds(client, api):
    api.put(POD, pod("w", "Ready"))
    obj = client.wait_for(POD, "w", lambda o: o and o["status"]["phase"] == "Ready", 5, NS)
    assert obj["metadata"]["name"] == "w"
    assert client.metrics.snapshot() == {"list pods": 1}


def test_wait_for_uses_one_list_and_one_watch_however_long_it_waits(client, api):
    api.max_watch_seconds = 10
    api.put(POD, pod("w", "Pending"))
    phases = ["Provisioning", "Provisioning", "Provisioning", "Ready"]
    client.transport.faults = OnWatch(lambda: [api.put(POD, pod("w", p)) for p in phases])
    obj = client.wait_for(POD, "w", lambda o: o and o["status"]["phase"] == "Ready", 10, NS)
    assert obj["status"]["phase"] == "Ready"
    assert client.metrics.snapshot() == {"list pods": 1, "watch pods": 1}
    _, _, query = api.requests[-1]
    assert query["fieldSelector"] == ["metadata.name=w"] and query["resourceVersion"]


def test_wait_for_gone(client, api):
    api.put(POD, pod("g"))
    api.remove(POD, "g", NS)
    assert client.wait_for(POD, "g", lambda o: o is None, 5, NS) is None  # already gone: the LIST says so
    api.put(POD, pod("g2"))
    client.transport.faults = OnWatch(lambda: api.remove(POD, "g2", NS))
    assert client.wait_for(POD, "g2", lambda o: o is None, 5, NS) is None  # the DELETED event says so
    assert client.metrics.snapshot() == {"list pods": 2, "watch pods": 1}


def test_wait_for_resumes_after_a_dropped_watch_from_the_last_version(api):
    api.max_watch_seconds = 5
    faults = OnWatch(lambda: (api.put(POD, pod("d", "Provisioning")), api.put(POD, pod("d", "Ready"))),
                     faults=[Fault(drop_watch_after=1)])
    client = KubeClient.from_url(api.url, token=TOKEN, faults=faults, retry=RetryPolicy(base=0.01, cap=0.02))
    api.put(POD, pod("d", "Pending"))
    obj = client.wait_for(POD, "d", lambda o: o and o["status"]["phase"] == "Ready", 10, NS)
    assert obj["status"]["phase"] == "Ready"
    watches = [q for m, p, q in api.requests if "watch" in q]
    assert len(watches) == 2 and api.count("GET", watch=False) == 1  # resumed, no re-list
    assert int(watches[1]["resourceVersion"][0]) == int(watches[0]["resourceVersion"][0]) + 1  # after Provisioning


def test_wait_for_relists_on_gone(client, api):
    api.max_watch_seconds = 5
    api.put(POD, pod("x", "Pending"))
    first = client.list(POD, NS).resource_version
    api.compact()
    api.script("GET", "/pods", 200, {"kind": "List", "items": [pod("x", "Pending")],
                                          "metadata": {"resourceVersion": first}})
    api.put(POD, pod("x", "Ready"))
    api.compact()
    obj = client.wait_for(POD, "x", lambda o: o and o["status"]["phase"] == "Ready", 10, NS)
    assert obj["status"]["phase"] == "Ready"
    lists = [q for m, p, q in api.requests if m == "GET" and "watch" not in q]
    assert len(lists) == 3  # ours, the stale scripted one, and the re-list after 410


def test_wait_for_times_out_naming_the_object_and_last_state(api, fake_time):
    api.max_watch_seconds = 0.05
    client = KubeClient.from_url(api.url, token=TOKEN, clock=fake_time.clock, sleep=fake_time.sleep,
                                 retry=RetryPolicy(base=1, cap=4, jitter=False))
    api.put(POD, {**pod("t", "Provisioning"),
                          "status": {"phase": "Provisioning",
                                     "conditions": [{"type": "Ready", "status": "False", "reason": "Provisioning"}]}})
    with pytest.raises(WaitTimeout) as info:
        client.wait_for(POD, "t", lambda o: o and o["status"]["phase"] == "Ready", 10, NS)
    text = str(info.value)
    assert text.startswith('timed out after 10s waiting for Pod "ns1/t"; last seen: resourceVersion=')
    assert text.endswith("phase=Provisioning, Ready=False/Provisioning")
    assert fake_time.now >= 1010 and sum(fake_time.sleeps) >= 10
    assert api.count("GET", watch=True) <= 5  # backoff between empty streams: 1, 2, 4, then the deadline


def test_wait_for_predicate_errors_end_the_wait(client, api):
    api.put(POD, pod("f", "Failed"))

    def ready(obj):
        if obj and obj["status"]["phase"] == "Failed":
            raise RuntimeError("disk failed")
        return obj and obj["status"]["phase"] == "Ready"

    with pytest.raises(RuntimeError, match="disk failed"):
        client.wait_for(POD, "f", ready, 5, NS)



def cm(name):
    return {"metadata": {"name": name, "namespace": NS}, "data": {}}


def test_rides_through_20_percent_5xx_and_watch_drops(api):
    """A writer and a waiter under 20 % injected 5xx on every verb and frequent watch drops."""
    api.max_watch_seconds = 2
    faults = RandomFaults(rate=0.2, statuses=(500, 502, 503, 504), watch_drop_rate=0.5, seed=7)
    client = KubeClient.from_url(api.url, token=TOKEN, faults=faults,
                                 retry=RetryPolicy(attempts=8, base=0.005, cap=0.02))
    for i in range(20):
        client.create(CONFIG_MAP, cm(f"r{i}"), NS, get_existing=True)

    def writer():
        for step in range(1, 6):
            for i in range(20):
                client.patch(CONFIG_MAP, f"r{i}", {"data": {"step": str(step)}}, NS)
            time.sleep(0.01)

    thread = threading.Thread(target=writer)
    thread.start()
    done = [client.wait_for(CONFIG_MAP, f"r{i}", lambda o: o and o["data"].get("step") == "5", 30, NS)
            for i in range(20)]
    thread.join()
    assert all(o["data"]["step"] == "5" for o in done)
    assert client.list_all(CONFIG_MAP, NS).items.__len__() == 20
    assert faults.injected >= 20
    assert sum(n for (v, r, c), n in client.metrics.errors.items() if c >= 500) >= 15


@pytest.mark.parametrize("framing", ["many chunks", "one huge chunk"])
def test_a_watch_line_that_never_ends_is_cut_at_the_cap_in_bounded_memory(framing):
    """A server that streams bytes without a line end (as many chunks, or one declared 1 GiB chunk) ends the
    watch with a clear error once the line passes MAX_EVENT_LINE; memory stays near the cap."""
    server = HostileHTTP({"/configmaps": endless_watch(
        chunk_header=b"40000000" if framing == "one huge chunk" else None)})
    box: dict = {}

    def run() -> None:
        client = KubeClient.from_url(server.url, token=TOKEN, retry=RetryPolicy(attempts=1))
        tracemalloc.start()
        try:
            for _ in client.watch(CONFIG_MAP, NS, timeout_seconds=30):
                box["event"] = True
        except Exception as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc
        finally:
            box["peak"] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()

    try:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(60)  # only keeps a broken build (an unbounded buffer) from hanging the suite
        assert not thread.is_alive(), "the watch kept reading a line without end"
        assert server.hung_up.wait(10)  # the client closed the stream
    finally:
        server.stop()
    error = box.get("error")
    assert isinstance(error, Transient) and "event" not in box, box
    assert (error.reason, error.verb, error.kind) == ("WatchDecode", "watch", "ConfigMap")
    assert str(error) == f"watch ConfigMap: 0 WatchDecode: watch sent an event line longer than {MAX_EVENT_LINE} bytes"
    assert server.sent > MAX_EVENT_LINE  # the cap was reached, not some other failure
    assert box["peak"] < 2 * MAX_EVENT_LINE

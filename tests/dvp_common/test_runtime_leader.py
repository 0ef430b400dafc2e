# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import datetime

import pytest
from dvp_common.kube import NO_RETRY, KubeClient
from dvp_common.kube.resources import LEASE
from dvp_common.runtime import LeaderElector
from dvpc_kit import TOKEN, FakeTime

NS = "d8-cloud-provider-dvp"
WALL = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def elector(api, identity, clock, events):
    client = KubeClient.from_url(api.url, token=TOKEN, retry=NO_RETRY)
    return LeaderElector(client, "capdvp-leader", NS, identity, lease_duration=15, renew_deadline=10,
                         retry_period=2, clock=clock.clock,
                         wall=lambda: WALL + datetime.timedelta(seconds=clock.now),
                         on_started=lambda: events.append((identity, "started")),
                         on_stopped=lambda: events.append((identity, "stopped")))


def test_one_leader_takeover_after_expiry_and_lost_lease(api):
    events = []
    ta, tb = FakeTime(), FakeTime()
    a, b = elector(api, "pod-a", ta, events), elector(api, "pod-b", tb, events)
    assert a.tick() is True and b.tick() is False
    lease = a.client.get(LEASE, "capdvp-leader", NS)
    assert lease["spec"] == {"holderIdentity": "pod-a", "leaseDurationSeconds": 15,
                             "acquireTime": "2026-01-01T00:16:40.000000Z",
                             "renewTime": "2026-01-01T00:16:40.000000Z", "leaseTransitions": 0}
    ta.now += 2
    assert a.tick() is True  # renew
    assert a.client.get(LEASE, "capdvp-leader", NS)["spec"]["renewTime"] == "2026-01-01T00:16:42.000000Z"
    tb.now += 14
    assert b.tick() is False  # b sees the renewed record: its 15 s start over on b's own clock
    tb.now += 14
    assert b.tick() is False
    tb.now += 1  # a went silent: no change seen for the whole lease
    assert b.tick() is True
    assert a.client.get(LEASE, "capdvp-leader", NS)["spec"]["leaseTransitions"] == 1
    ta.now += 5
    assert a.tick() is True  # still within its renew deadline: a believes it leads
    ta.now += 10
    assert a.tick() is False  # could not renew for 10 s: stops
    assert events == [("pod-a", "started"), ("pod-b", "started"), ("pod-a", "stopped")]


def test_release_hands_over_at_once(api):
    events = []
    ta, tb = FakeTime(), FakeTime()
    a, b = elector(api, "pod-a", ta, events), elector(api, "pod-b", tb, events)
    assert a.tick() and not b.tick()
    a.release()
    assert b.tick() is True
    assert events == [("pod-a", "started"), ("pod-a", "stopped"), ("pod-b", "started")]


def test_bad_timings_are_refused(api):
    with pytest.raises(ValueError, match="lease_duration > renew_deadline > retry_period"):
        LeaderElector(KubeClient.from_url(api.url), "l", NS, "me", lease_duration=5, renew_deadline=10)

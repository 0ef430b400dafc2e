# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Configurable latency, phases that never finish, and injected faults (errors per verb, watch drops)."""

from __future__ import annotations

import time

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import KubeClient, RetryPolicy, WaitTimeout
from dvp_common.kube.faults import RequestInfo

from sim import SimFaults
from sim.builders import WAIT, disk, phase_is


def test_a_configured_latency_holds_the_phase_at_least_that_long(dvp, ns, start_sim, record):
    start_sim(latency={"VirtualDisk.Provisioning": 0.6})
    rec = record(R.VIRTUAL_DISK)
    started = time.monotonic()
    dvp.create(R.VIRTUAL_DISK, disk("slow", "1Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "slow", phase_is("Ready"), WAIT, ns)
    assert time.monotonic() - started >= 0.6
    assert rec.until("slow", 3) == ["Pending", "Provisioning", "Ready"]


def test_a_stuck_phase_never_finishes(dvp, ns, start_sim):
    start_sim(stuck={"VirtualDisk.Provisioning"})
    dvp.create(R.VIRTUAL_DISK, disk("stuck", "1Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "stuck", phase_is("Provisioning"), WAIT, ns)
    with pytest.raises(WaitTimeout, match='VirtualDisk "sim-.*/stuck".*phase=Provisioning'):
        dvp.wait_for(R.VIRTUAL_DISK, "stuck", phase_is("Ready"), 1.5, ns)


def test_the_simulator_rides_through_its_own_injected_errors_and_watch_drops(dvp, ns, start_sim):
    faults = SimFaults(error_rate={"update": 0.3, "patch": 0.3, "create": 0.3, "list": 0.1},
                       watch_drop_rate=0.3, seed=7)
    sim = start_sim(faults=faults)
    for i in range(4):
        dvp.create(R.VIRTUAL_DISK, disk(f"f{i}", "1Gi"), ns)
    for i in range(4):
        assert dvp.wait_for(R.VIRTUAL_DISK, f"f{i}", phase_is("Ready"), WAIT, ns)["status"]["capacity"] == "1Gi"
    assert faults.injected.get("update", 0) + faults.injected.get("patch", 0) > 0
    assert faults.injected.get("watch-drop", 0) > 0
    assert sim.stats["writes"] >= 4 * 3  # serial annotation, Pending, Provisioning, Ready per disk at least


def test_a_component_client_with_injected_faults_still_sees_the_disk_ready(dvp_api, dvp, ns, sim):
    faults = SimFaults(error_rate={"list": 0.5, "watch": 0.5}, watch_drop_rate=0.5, seed=3)
    client = KubeClient.from_url(dvp_api.url, token=dvp_api.token, ca_data=dvp_api.ca_pem, faults=faults,
                                 retry=RetryPolicy(attempts=8, base=0.01, cap=0.1))
    try:
        dvp.create(R.VIRTUAL_DISK, disk("seen", "1Gi"), ns)
        assert client.wait_for(R.VIRTUAL_DISK, "seen", phase_is("Ready"), WAIT, ns)["status"]["phase"] == "Ready"
    finally:
        client.close()
    assert sum(faults.injected.values()) > 0


def test_faults_are_deterministic_per_seed_and_filtered_by_verb():
    req = RequestInfo(verb="get", method="GET", resource="virtualdisks.virtualization.deckhouse.io",
                      namespace="ns", name="d", path="/x")
    put = RequestInfo(verb="update", method="PUT", resource="virtualdisks.virtualization.deckhouse.io",
                      namespace="ns", name="d", path="/x")
    a, b = SimFaults(error_rate={"get": 0.5}, seed=11), SimFaults(error_rate={"get": 0.5}, seed=11)
    seq_a = [a(req) is not None for _ in range(40)]
    assert seq_a == [b(req) is not None for _ in range(40)]
    assert 5 < sum(seq_a) < 35
    assert all(a(put) is None for _ in range(20))
    fault = SimFaults(error_rate={"get": 1.0}, statuses=(503,), seed=1)(req)
    assert (fault.status, fault.message) == (503, "injected by dvp_sim")


def test_added_latency_sleeps_before_each_request():
    slept: list[float] = []
    hook = SimFaults(latency=0.25, sleep=slept.append)
    req = RequestInfo(verb="list", method="GET", resource="virtualmachines.virtualization.deckhouse.io",
                      namespace="", name="", path="/x")
    assert hook(req) is None and hook(req) is None
    assert slept == [0.25, 0.25]


def test_fault_rates_outside_zero_to_one_are_refused():
    with pytest.raises(ValueError, match=r"SimFaults.error_rate\['get'\]: 1.5 is not within 0..1"):
        SimFaults(error_rate={"get": 1.5})

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""GetCapacity and CreateVolume's quota check from the project's ResourceQuotas, on the real API with the DVP
simulator playing the quota controller: headroom per DVP class, no DVP request per call once the watch runs, and
RESOURCE_EXHAUSTED before any DVP write."""

from __future__ import annotations

import threading
import time

import grpc
import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube.faults import Fault
from dvp_csi.generated import csi_pb2
from dvp_csi.quotas import UNLIMITED

from sim import SimConfig
from testkit.csi.requests import GIB, create, expect_code
from testkit.csi.sim import sim_env

C = grpc.StatusCode


class Count:
    """A fault hook that injects nothing and counts the driver's DVP requests by verb."""

    def __init__(self) -> None:
        self.verbs: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, info):
        with self._lock:
            self.verbs.append(info.verb)
        return None


@pytest.fixture
def counted(dvp_api, tmp_path):
    count = Count()
    for env in sim_env(dvp_api, tmp_path, sim=SimConfig(default_latency=0.02, watch_timeout=1, quota_status=True),
                       faults=count):
        yield env, count


def capacity(csi, dvp_class: str = "") -> int:
    params = {"dvpStorageClass": dvp_class} if dvp_class else {}
    return csi.controller.GetCapacity(csi_pb2.GetCapacityRequest(parameters=params)).available_capacity


def eventually(fn, want, timeout: float = 30.0):
    deadline, got = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        got = fn()
        if got == want:
            return got
        time.sleep(0.05)  # polling the driver's own cache, bounded by the deadline
    raise AssertionError(f"still {got}, wanted {want}")


def test_capacity_is_the_quota_headroom_per_class_from_a_watch(counted):
    env, count = counted
    csi = env.csi
    assert capacity(csi, "fast") == UNLIMITED  # no quota in the project
    env.dvp.create(r.RESOURCE_QUOTA, {"metadata": {"name": "project"}, "spec": {"hard": {
        "requests.storage": "10Gi", "fast.storageclass.storage.k8s.io/requests.storage": "3Gi"}}}, env.ns)
    used = 2 * 2 * GIB + 2 * 64 * (1 << 20)  # the kit's two node VMs: boot 2Gi + one 64Mi disk each
    eventually(lambda: capacity(csi, "fast"), 3 * GIB)
    eventually(lambda: capacity(csi, "slow"), 10 * GIB - used)  # once the quota controller published status.used
    csi.controller.CreateVolume(create("pvc-1", sc="fast", required=GIB))
    eventually(lambda: capacity(csi, "fast"), 2 * GIB)
    eventually(lambda: capacity(csi), 9 * GIB - used)

    before = len(count.verbs)
    for _ in range(100):
        capacity(csi, "fast")
    assert [v for v in count.verbs[before:] if v != "watch"] == []  # answered from the informer's cache


def test_create_beyond_the_quota_is_resource_exhausted_before_any_dvp_write(counted):
    env, count = counted
    env.dvp.create(r.RESOURCE_QUOTA, {"metadata": {"name": "project"}, "spec": {"hard": {
        "fast.storageclass.storage.k8s.io/requests.storage": "1Gi"}}}, env.ns)
    eventually(lambda: capacity(env.csi, "fast"), GIB)
    state = env.state()
    before = len(count.verbs)
    expect_code(C.RESOURCE_EXHAUSTED, env.csi.controller.CreateVolume, create("pvc-big", sc="fast", required=2 * GIB),
                "volume pvc-big: 2Gi on DVP storage class fast exceeds the project's ResourceQuota headroom (1Gi left)")
    assert [v for v in count.verbs[before:] if v not in ("get", "watch")] == []
    assert env.state() == state
    env.csi.controller.CreateVolume(create("pvc-fits", sc="fast", required=GIB))
    assert env.get(r.VIRTUAL_DISK, "pvc-fits")["status"]["phase"] == "Ready"


def test_capacity_is_advertised(counted):
    env, _ = counted
    caps = env.csi.controller.ControllerGetCapabilities(csi_pb2.ControllerGetCapabilitiesRequest()).capabilities
    assert csi_pb2.ControllerServiceCapability.RPC.GET_CAPACITY in [c.rpc.type for c in caps]


def test_without_quota_rbac_capacity_is_unavailable_and_create_leaves_the_quota_to_dvp(dvp_api, tmp_path):
    def no_quotas(info):  # a DVP Role that does not grant resourcequotas
        if info.resource == "resourcequotas":
            return Fault(status=403, reason="Forbidden", message='cannot list resource "resourcequotas"')
        return None

    for env in sim_env(dvp_api, tmp_path, faults=no_quotas):
        expect_code(C.UNAVAILABLE, env.csi.controller.GetCapacity,
                    csi_pb2.GetCapacityRequest(parameters={"dvpStorageClass": "fast"}),
                    "DVP ResourceQuotas are not read yet")
        started = time.monotonic()
        env.csi.controller.CreateVolume(create("pvc-1", sc="fast", required=GIB))
        assert time.monotonic() - started < 5  # the quota watch is not waited for again
        assert env.get(r.VIRTUAL_DISK, "pvc-1")["status"]["phase"] == "Ready"

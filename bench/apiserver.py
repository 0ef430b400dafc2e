# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real Kubernetes API of the harness and the DVP simulator on it.

- start-up: etcd + the "dvp" and "guest" kube-apiservers + every CRD Established + DVP's garbage collector
  (kube-controller-manager) collecting (goal <= 20 s once built);
- DVP requests per wait: a dvp_common client waits for a VirtualDisk the simulator makes Ready after 0.5 s and
  after 3 s; a watch-based wait costs the same number of requests (LIST + WATCH) whatever it lasts;
- the simulator's own pace: a VM (disk, cloud-init Secret, address) from create to Running at 0.05 s per phase.
"""

from __future__ import annotations

import statistics
import time

from dvp_common.dvp import resources as R
from dvp_common.kube import KubeClient, RequestMetrics

from bench.measure import figure
from sim import SimConfig, Simulator, seed
from sim.builders import cloud_init, disk, phase_is, vm
from testkit.harness.apiserver import ControlPlane, dvp_crd_files, guest_crd_files

STARTS = 3
WAIT = 60.0


def _start() -> tuple[ControlPlane, float]:
    plane = ControlPlane()
    began = time.monotonic()
    plane.start({"dvp": ("AlwaysAllow", dvp_crd_files()), "guest": ("AlwaysAllow", guest_crd_files())})
    return plane, time.monotonic() - began


def _requests_per_wait(plane: ControlPlane, provisioning_s: float) -> tuple[int, float]:
    api = plane.servers["dvp"]
    admin = api.client()
    ns = api.create_namespace("bench")
    sim = Simulator(api.client(), SimConfig(namespace=ns, default_latency=0.02, watch_timeout=1,
                                            latency={"VirtualDisk.Provisioning": provisioning_s})).start()
    metrics = RequestMetrics()
    waiter = KubeClient.from_url(api.url, token=api.token, ca_data=api.ca_pem, metrics=metrics)
    try:
        admin.create(R.VIRTUAL_DISK, disk("bench", "1Gi", "bench-fast"), ns)
        began = time.monotonic()
        waiter.wait_for(R.VIRTUAL_DISK, "bench", phase_is("Ready"), WAIT, ns)
        return metrics.total(), time.monotonic() - began
    finally:
        sim.stop()
        for c in (sim.client, waiter, admin):
            c.close()


def _vm_to_running(plane: ControlPlane) -> float:
    api = plane.servers["dvp"]
    admin = api.client()
    ns = api.create_namespace("bench")
    sim = Simulator(api.client(), SimConfig(namespace=ns, default_latency=0.05, watch_timeout=1)).start()
    try:
        began = time.monotonic()
        admin.create(R.VIRTUAL_MACHINE, vm("m", ["m-boot"], user_data="cloud-init-m"), ns)
        admin.create(R.VIRTUAL_DISK, disk("m-boot", "1Gi", "bench-fast"), ns)
        admin.create(R.SECRET, cloud_init("cloud-init-m"), ns)
        admin.wait_for(R.VIRTUAL_MACHINE, "m", phase_is("Running"), WAIT, ns)
        return time.monotonic() - began
    finally:
        sim.stop()
        sim.client.close()
        admin.close()


def figures() -> list[dict]:
    starts = []
    for _ in range(STARTS - 1):
        plane, seconds = _start()
        plane.stop()
        starts.append(seconds)
    plane, seconds = _start()
    starts.append(seconds)
    try:
        admin = plane.servers["dvp"].client()
        seed.storage_class(admin, "bench-fast")
        seed.vm_class(admin, "generic")
        admin.close()
        short, short_s = _requests_per_wait(plane, 0.5)
        long, long_s = _requests_per_wait(plane, 3.0)
        vm_s = _vm_to_running(plane)
    finally:
        plane.stop()
    return [
        figure("harness: etcd + 2 kube-apiservers + CRDs + DVP's garbage collector ready (median of 3)",
               round(statistics.median(starts), 2), "s", "<= 20"),
        figure("harness: start-up, slowest of 3", round(max(starts), 2), "s", None),
        figure(f"dvp_sim: DVP requests per wait, disk Ready after {short_s:.1f} s", short, "requests",
               "constant (watch-based)"),
        figure(f"dvp_sim: DVP requests per wait, disk Ready after {long_s:.1f} s", long, "requests",
               "constant (watch-based)"),
        figure("dvp_sim: VM create -> Running (disk, Secret, address; 0.05 s per phase)", round(vm_s, 2), "s", None),
    ]

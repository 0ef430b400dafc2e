# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CSI driver: CreateVolume overhead beyond DVP, 200 concurrent CreateVolume, GetCapacity, DVP requests per call.

The driver is served on a real unix socket and called over gRPC. DVP is a real kube-apiserver with the DVP
simulator playing its controllers (tests/dvp_sim; disks become Ready PROVISION_S after creation in the concurrent
run), behind a wrapper of the driver's KubeClient that counts calls and the time spent in them. HTTP requests:
each call is one request, except a watch-based wait, which is two (LIST + WATCH, dvp_common.kube.wait) however
long it lasts.
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from csi_env import CLUSTER, NODE, TIMEOUTS, make_settings, serve
from csi_requests import create as create_request
from csi_requests import publish

from bench.measure import figure

PROVISION_S = 0.5
SEQUENTIAL = 200
CONCURRENT = 200
CAPACITY_CALLS = 1000


class Counting:
    """Counts DVP calls, waits, and the wall time spent inside DVP calls."""

    def __init__(self, api) -> None:
        self.api = api
        self.calls = 0
        self.waits = 0
        self.total = 0.0
        self._mu = threading.Lock()

    def __getattr__(self, name):
        fn = getattr(self.api, name)
        if not callable(fn):
            return fn

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                with self._mu:
                    self.total += time.perf_counter() - start
                    self.calls += 1
                    self.waits += name == "wait_for"

        return timed

    def http(self) -> int:
        return self.calls + self.waits


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def create(name: str):
    from csi_sim import STORAGE_CLASS

    return create_request(name, sc=STORAGE_CLASS)


def run() -> dict:
    from csi_sim import LATENCY, STORAGE_CLASS, add_vm
    from dvp_csi.access import Dvp
    from dvp_csi.generated import csi_pb2
    from dvp_sim import SimConfig, Simulator, seed
    from harness.apiserver import ControlPlane, dvp_crd_files

    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp, ControlPlane() as plane:
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files())})
        api = plane.servers["dvp"]
        admin = api.client()
        seed.storage_class(admin, "sim-fast")
        seed.vm_class(admin, "generic")
        seed.cluster_image(admin, "ubuntu")

        def simulated(prefix: str, **latency: float):
            ns = api.create_namespace(prefix)
            cfg = SimConfig(default_latency=LATENCY, watch_timeout=1, namespace=ns,
                            latency={k.replace("_", "."): v for k, v in latency.items()})
            return ns, Simulator(api.client(), cfg).start()

        # 1. overhead: sequential CreateVolume, wall time minus time inside DVP calls
        ns, sim = simulated("bench-csi-a")
        add_vm(admin, ns, "vm-worker-0", NODE)
        dvp = Counting(api.client())
        overheads = []
        settings = make_settings(Path(tmp) / "a", namespace=ns)
        for r in serve(settings, Dvp.over(dvp, ns, CLUSTER)):
            r.controller.CreateVolume(create("pvc-warmup"))
            for i in range(SEQUENTIAL):
                start, in_dvp = time.perf_counter(), dvp.total
                r.controller.CreateVolume(create(f"pvc-s{i}"))
                overheads.append((time.perf_counter() - start - (dvp.total - in_dvp)) * 1000)
            before = dvp.calls, dvp.http()
            r.controller.CreateVolume(create("pvc-count"))
            out["calls_per_create"] = dvp.calls - before[0]
            out["http_per_create"] = dvp.http() - before[1]
            before = dvp.calls, dvp.http()
            r.controller.ControllerPublishVolume(publish("pvc-count"))
            out["calls_per_publish"] = dvp.calls - before[0]
            out["http_per_publish"] = dvp.http() - before[1]
            # GetCapacity in steady state: the quota informer started with the first CreateVolume
            request = csi_pb2.GetCapacityRequest(parameters={"dvpStorageClass": STORAGE_CLASS})
            before, latencies = dvp.http(), []
            for _ in range(CAPACITY_CALLS):
                start = time.perf_counter()
                r.controller.GetCapacity(request)
                latencies.append((time.perf_counter() - start) * 1000)
            out["capacity_p50_ms"] = round(statistics.median(latencies), 3)
            out["http_per_capacity"] = (dvp.http() - before) / CAPACITY_CALLS
        sim.stop()
        out["overhead_p50_ms"] = round(statistics.median(overheads), 2)
        out["overhead_p99_ms"] = round(pct(overheads, 99), 2)

        # 2. 200 concurrent CreateVolume, DVP taking PROVISION_S to make each disk Ready
        ns, sim = simulated("bench-csi-b", VirtualDisk_Provisioning=PROVISION_S)
        settings = make_settings(Path(tmp) / "b", namespace=ns, timeouts=dataclasses.replace(TIMEOUTS, create=300))
        for r in serve(settings, Dvp.over(api.client(), ns, CLUSTER)):
            start = time.perf_counter()
            with ThreadPoolExecutor(CONCURRENT) as pool:
                call = r.controller.CreateVolume
                results = list(pool.map(lambda i, c=call: c(create(f"pvc-c{i}")), range(CONCURRENT)))
            out["concurrent_s"] = round(time.perf_counter() - start, 2)
            assert len({x.volume.volume_id for x in results}) == CONCURRENT
        sim.stop()
    return out


def figures():
    res = run()
    yield figure("csi: CreateVolume driver overhead beyond DVP, p50", res["overhead_p50_ms"], "ms", "<= 5")
    yield figure("csi: CreateVolume driver overhead beyond DVP, p99", res["overhead_p99_ms"], "ms", "<= 20")
    yield figure(f"csi: {CONCURRENT} concurrent CreateVolume, all done (DVP provisions each in {PROVISION_S:g} s)",
                 res["concurrent_s"], "s", f"<= {PROVISION_S + 2:g}")
    yield figure("csi: DVP HTTP requests per CreateVolume (watch-based wait = LIST + WATCH)",
                 res["http_per_create"], "requests", "<= 4")
    yield figure("csi: DVP HTTP requests per ControllerPublishVolume", res["http_per_publish"], "requests", "<= 6")
    yield figure("csi: GetCapacity (quota headroom from the ResourceQuota informer), p50", res["capacity_p50_ms"], "ms",
                 "<= 2")
    yield figure(f"csi: DVP HTTP requests per GetCapacity, steady state (mean of {CAPACITY_CALLS})",
                 res["http_per_capacity"], "requests", "0")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CSI driver: CreateVolume overhead beyond DVP, 200 concurrent CreateVolume, DVP requests per call.

The driver is served on a real unix socket and called over gRPC. DVP is the in-memory DVP of dvp_csi (each request
costs RTT_S; disks become Ready PROVISION_S after creation) behind a wrapper that counts calls and the time spent
in them. HTTP requests on the real API: each call is one request, except a watch-based wait, which is two (LIST +
WATCH, dvp_common.kube.wait) however long it lasts.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from csi_env import CLUSTER, NODE, make_settings, serve
from csi_requests import create, publish
from dvp_csi.dvp.memory import MemoryDvp

from bench.measure import figure

RTT_S = 0.002
PROVISION_S = 0.5
SEQUENTIAL = 200
CONCURRENT = 200


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

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                with self._mu:
                    self.total += time.perf_counter() - start
                    self.calls += 1
                    self.waits += name == "wait"

        return timed

    def http(self) -> int:
        return self.calls + self.waits


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def run() -> dict:
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        # 1. overhead: sequential CreateVolume, wall time minus time inside DVP calls
        mem = MemoryDvp(latency=RTT_S)
        mem.add_vm("vm-worker-0", NODE, CLUSTER)
        dvp = Counting(mem)
        overheads = []
        for r in serve(make_settings(Path(tmp) / "a"), dvp):
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
        out["overhead_p50_ms"] = round(statistics.median(overheads), 2)
        out["overhead_p99_ms"] = round(pct(overheads, 99), 2)

        # 2. 200 concurrent CreateVolume, DVP taking PROVISION_S to make each disk Ready
        mem = MemoryDvp(latency=RTT_S, settle=PROVISION_S)
        mem.add_vm("vm-worker-0", NODE, CLUSTER)
        for r in serve(make_settings(Path(tmp) / "b"), mem):
            start = time.perf_counter()
            with ThreadPoolExecutor(CONCURRENT) as pool:
                call = r.controller.CreateVolume
                results = list(pool.map(lambda i, c=call: c(create(f"pvc-c{i}")), range(CONCURRENT)))
            out["concurrent_s"] = round(time.perf_counter() - start, 2)
            assert len({x.volume.volume_id for x in results}) == CONCURRENT
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

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_common: what a watch-based wait costs in API requests, with and without injected faults.

A wait is one LIST (state + resourceVersion) and one WATCH, however long it lasts; the figure to watch is
"requests per wait" staying constant while the wait's length grows. The server is the in-memory API on the wire
(sim.memory_api.http: HTTP on 127.0.0.1, real watches).
"""

from __future__ import annotations

import statistics
import sys
import threading
import time

from dvp_common.kube import KubeClient, RandomFaults, RetryPolicy
from dvp_common.kube.resources import CONFIG_MAP

from bench.measure import figure, process_ms
from sim.memory_api import MemoryApi
from sim.memory_api.http import HttpApi

NS = "bench"
CHANGES, SPACING_S = 20, 0.1  # each wait sees 20 changes over 2 s before its condition holds


def _one_wait(server: HttpApi, client: KubeClient, name: str) -> tuple[int, float]:
    server.put(CONFIG_MAP, {"metadata": {"name": name, "namespace": NS}, "data": {"phase": "Pending"}})
    last = {"t": 0.0}

    def play() -> None:
        for i in range(CHANGES):
            time.sleep(SPACING_S)
            phase = "Ready" if i == CHANGES - 1 else f"Step{i}"
            last["t"] = time.perf_counter()
            server.put(CONFIG_MAP, {"metadata": {"name": name, "namespace": NS}, "data": {"phase": phase}})

    before = client.metrics.total()
    thread = threading.Thread(target=play)
    thread.start()
    client.wait_for(CONFIG_MAP, name, lambda o: o and o["data"]["phase"] == "Ready", 60, NS)
    done = time.perf_counter()
    thread.join()
    return client.metrics.total() - before, (done - last["t"]) * 1000


def figures() -> list[dict]:
    memory = MemoryApi()
    memory.ensure_namespace(NS)
    server = HttpApi(memory, max_watch_seconds=30)
    try:
        clean = KubeClient.from_url(server.url)
        runs = [_one_wait(server, clean, f"w{i}") for i in range(3)]
        faults = RandomFaults(rate=0.2, statuses=(500, 503), watch_drop_rate=0.5, watch_drop_after=(0, 5), seed=1)
        faulty = KubeClient.from_url(server.url, faults=faults, retry=RetryPolicy(base=0.01, cap=0.1))
        noisy = [_one_wait(server, faulty, f"f{i}") for i in range(3)]
    finally:
        server.stop()
    import_ms = process_ms([sys.executable, "-c", "import dvp_common.kube"], runs=5)
    requests_ms = process_ms([sys.executable, "-c", "import requests"], runs=5)
    return [
        figure(f"dvp_common: requests per watch-based wait ({CHANGES} changes over {CHANGES * SPACING_S:g} s)",
               max(n for n, _ in runs), "requests", "2 (one LIST + one WATCH), independent of the wait's length"),
        figure("dvp_common: wait return latency after the awaited change (median)",
               round(statistics.median(ms for _, ms in runs), 2), "ms", None),
        figure("dvp_common: requests per wait under 20% injected 5xx and 50% watch drops (mean of 3)",
               round(statistics.mean(n for n, _ in noisy), 1), "requests", "a few, not one per change"),
        figure("dvp_common: `import dvp_common.kube` in a fresh interpreter (median of 5)", import_ms, "ms", None),
        figure("dvp_common: `import requests` alone, for scale (median of 5)", requests_ms, "ms", None),
    ]

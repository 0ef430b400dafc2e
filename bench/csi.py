# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CSI driver: CreateVolume overhead beyond DVP, 200 concurrent CreateVolume, GetCapacity, DVP requests per call.

The driver is served on a real unix socket and called over gRPC, on its real dvp_common client. For the driver's
own figures DVP is the in-memory API (sim/memory_api, RTT_S per request) with the DVP simulator playing its
controllers (sim; disks become Ready PROVISION_S after creation in the concurrent run), so they
measure the driver, not kube-apiserver on a shared machine; tests/dvp_sim runs the simulator's contract tests on
both APIs. The last figure is the same concurrent run on the real kube-apiserver (testkit/harness): what the
simulated DVP costs end to end. DVP calls go through a wrapper of the driver's KubeClient that counts them and
the time spent in them. HTTP requests: each call is one request, except a watch-based wait, which is two (LIST +
WATCH, dvp_common.kube.wait) however long it lasts.

The growth curve (bench.measure.sizes, `lifecycle()`): n volumes created, published across n/10 nodes' VMs (10
hot-plugged disks each, within DVP's 16 devices), snapshotted, snapshots deleted, unpublished and deleted,
WORKERS calls at a time as the sidecars make them; per phase the DVP HTTP requests per volume and the wall time,
next to the simulator's own floor for the same n (n disks created directly until Ready, WORKERS writers). The same
walk on the in-memory API (`lifecycle_flat()`, RTT_S per request) gives publish and unpublish at a request cost that
does not grow with n: attachments go through DVP's one VMBDA worker (sim/CONTRACT.md C8).
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.measure import figure, growth, sizes
from testkit.csi.env import CLUSTER, NODE, TIMEOUTS, make_settings, serve
from testkit.csi.requests import create as create_request
from testkit.csi.requests import publish

RTT_S = 0.002  # the in-memory API's answer time: a round trip to a near DVP API server
PROVISION_S = 0.5
SEQUENTIAL = 200
CAPACITY_CALLS = 1000
CONCURRENT = 200
WORKERS = 16  # calls in flight in the growth curve
PER_NODE = 10  # volumes published to each node's VM in the growth curve
PHASES = ("create", "publish", "snapshot", "delete_snapshot", "unpublish", "delete")


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
    from testkit.csi.sim import STORAGE_CLASS

    return create_request(name, sc=STORAGE_CLASS)


def seeded(api) -> None:
    from sim import seed

    admin = api.client()
    seed.storage_class(admin, "sim-fast")
    seed.vm_class(admin, "generic")
    seed.cluster_image(admin, "ubuntu")
    admin.close()


def simulated(api, prefix: str, **latency: float):
    """A namespace of `api` with a simulator scoped to it; `latency`: seconds per phase, `Kind_Phase=`."""
    from sim import SimConfig, Simulator
    from testkit.csi.sim import LATENCY

    ns = api.create_namespace(prefix)
    cfg = SimConfig(default_latency=LATENCY, watch_timeout=1, namespace=ns,
                    latency={k.replace("_", "."): v for k, v in latency.items()})
    return ns, Simulator(api.client(), cfg).start()


def driver_figures(api, tmp: Path) -> dict:
    """Sequential CreateVolume: wall time minus time inside DVP calls; DVP calls per Create and Publish."""
    from dvp_csi.access import Dvp
    from dvp_csi.generated import csi_pb2

    from testkit.csi.sim import STORAGE_CLASS, add_vm

    out: dict = {}
    ns, sim = simulated(api, "bench-csi-a")
    add_vm(api.client(), ns, "vm-worker-0", NODE)
    dvp = Counting(api.client())
    overheads = []
    for r in serve(make_settings(tmp, namespace=ns), Dvp.over(dvp, ns, CLUSTER)):
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
        before_http, latencies = dvp.http(), []
        for _ in range(CAPACITY_CALLS):
            start = time.perf_counter()
            r.controller.GetCapacity(request)
            latencies.append((time.perf_counter() - start) * 1000)
        out["capacity_p50_ms"] = round(statistics.median(latencies), 3)
        out["http_per_capacity"] = (dvp.http() - before_http) / CAPACITY_CALLS
    sim.stop()
    out["overhead_p50_ms"] = round(statistics.median(overheads), 2)
    out["overhead_p99_ms"] = round(pct(overheads, 99), 2)
    return out


def concurrent_s(api, tmp: Path, prefix: str) -> float:
    """CONCURRENT CreateVolume at once, DVP taking PROVISION_S to make each disk Ready: seconds until all done."""
    from dvp_csi.access import Dvp

    ns, sim = simulated(api, prefix, VirtualDisk_Provisioning=PROVISION_S)
    settings = make_settings(tmp, namespace=ns, timeouts=dataclasses.replace(TIMEOUTS, create=300))
    for r in serve(settings, Dvp.over(api.client(), ns, CLUSTER)):
        start = time.perf_counter()
        with ThreadPoolExecutor(CONCURRENT) as pool:
            call = r.controller.CreateVolume
            results = list(pool.map(lambda i, c=call: c(create(f"pvc-c{i}")), range(CONCURRENT)))
        took = round(time.perf_counter() - start, 2)
        assert len({x.volume.volume_id for x in results}) == CONCURRENT
    sim.stop()
    return took


def _floor(api, n: int) -> float:
    """The simulator alone: n disks created directly (WORKERS writers) until every one is Ready."""
    from dvp_common.dvp import resources as r

    from sim import SimConfig, Simulator
    from sim.builders import disk
    from testkit.csi.sim import LATENCY, STORAGE_CLASS

    ns = api.create_namespace("bench-csi-floor")
    client = api.client()
    sim = Simulator(api.client(), SimConfig(default_latency=LATENCY, watch_timeout=1, namespace=ns)).start()
    try:
        start = time.perf_counter()
        with ThreadPoolExecutor(WORKERS) as pool:
            list(pool.map(lambda i: client.create(r.VIRTUAL_DISK, disk(f"floor-{i:04d}", "64Mi", STORAGE_CLASS), ns),
                          range(n)))
        ready = lambda d: (d.get("status") or {}).get("phase") == "Ready"  # noqa: E731
        for i in range(n):
            client.wait_for(r.VIRTUAL_DISK, f"floor-{i:04d}", ready, 600, ns)
        return time.perf_counter() - start
    finally:
        sim.stop()
        client.close()


def _phases(c, dvp: Counting, n: int, nodes: int) -> dict:
    """Every controller call on n volumes, WORKERS at a time: DVP HTTP requests per volume and wall time per phase."""
    from dvp_csi.generated import csi_pb2

    from testkit.csi.requests import unpublish

    names = [f"pvc-{i:04d}" for i in range(n)]
    ids: dict[str, str] = {}
    snaps: dict[str, str] = {}
    out: dict = {}

    def node(i: int) -> str:
        return f"worker-{i % nodes:04d}"

    with ThreadPoolExecutor(WORKERS) as pool:
        def create_all() -> None:
            ids.update(zip(names, (x.volume.volume_id for x in pool.map(
                lambda nm: c.CreateVolume(create(nm)), names)), strict=True))

        def snapshot_all() -> None:
            snaps.update(zip(names, (x.snapshot.snapshot_id for x in pool.map(
                lambda nm: c.CreateSnapshot(csi_pb2.CreateSnapshotRequest(name=f"snap-{nm}",
                                                                          source_volume_id=ids[nm])), names)),
                             strict=True))

        calls = {
            "create": create_all,
            "publish": lambda: list(pool.map(lambda i: c.ControllerPublishVolume(publish(ids[names[i]], node(i))),
                                             range(n))),
            "snapshot": snapshot_all,
            "delete_snapshot": lambda: list(pool.map(lambda nm: c.DeleteSnapshot(
                csi_pb2.DeleteSnapshotRequest(snapshot_id=snaps[nm])), names)),
            "unpublish": lambda: list(pool.map(lambda i: c.ControllerUnpublishVolume(
                unpublish(ids[names[i]], node(i))), range(n))),
            "delete": lambda: list(pool.map(lambda nm: c.DeleteVolume(
                csi_pb2.DeleteVolumeRequest(volume_id=ids[nm])), names)),
        }
        for phase in PHASES:
            before, start = dvp.http(), time.perf_counter()
            calls[phase]()
            out[f"{phase}_s"] = time.perf_counter() - start
            out[f"{phase}_http_per_volume"] = (dvp.http() - before) / n
    return out


def _walk(api, n: int, tmp: Path) -> dict:
    """One growth-curve point on `api` (seeded): the floor, then n volumes through every controller call."""
    from dvp_csi.access import Dvp
    from dvp_csi.settings import Timeouts

    from sim import SimConfig, Simulator
    from testkit.csi.sim import LATENCY, add_vm

    nodes = max(1, n // PER_NODE)
    out: dict = {"n": n, "nodes": nodes}
    admin = api.client()
    out["floor_s"] = _floor(api, n)
    ns = api.create_namespace("bench-csi-n")
    sim = Simulator(api.client(), SimConfig(default_latency=LATENCY, watch_timeout=1, namespace=ns,
                                            ip_pool="10.77.0.0/20")).start()
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(lambda i: add_vm(admin, ns, f"vm-{i:04d}", f"worker-{i:04d}"), range(nodes)))
    dvp = Counting(api.client())
    # The driver's own bounds (the tests' short ones time out under this load), detach raised to the same as
    # attach: a detach past its bound answers Unavailable and the attacher retries, which this bench does not.
    timeouts = dataclasses.replace(Timeouts(), detach=Timeouts().attach)
    settings = make_settings(tmp / "n", namespace=ns, timeouts=timeouts)
    for srv in serve(settings, Dvp.over(dvp, ns, CLUSTER)):
        out.update(_phases(srv.controller, dvp, n, nodes))
    sim.stop()
    return out


def lifecycle(n: int) -> dict:
    """One growth-curve point on the real kube-apiserver (testkit/harness): what the simulated DVP costs there."""
    from testkit.harness.apiserver import ControlPlane, dvp_crd_files

    with tempfile.TemporaryDirectory() as tmp, ControlPlane() as plane:
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files())})
        api = plane.servers["dvp"]
        seeded(api)
        return _walk(api, n, Path(tmp))


def lifecycle_flat(n: int) -> dict:
    """The same point on the in-memory API, RTT_S per request whatever n: the curve of the walk's own shape (how
    many requests wait on which), without kube-apiserver's write latency, which grows with the load it is under."""
    from sim.memory_api import MemoryApi

    with tempfile.TemporaryDirectory() as tmp:
        api = MemoryApi(latency=RTT_S)
        seeded(api)
        return _walk(api, n, Path(tmp))


def figures():
    curve = {n: lifecycle(n) for n in sizes()}
    for n, res in curve.items():
        yield figure(f"csi n={n}: simulator floor, {n} disks created directly until Ready", round(res["floor_s"], 2),
                     "s")
        for phase in PHASES:
            yield figure(f"csi n={n}: {phase} of {n} volumes ({res['nodes']} nodes), wall time",
                         round(res[f"{phase}_s"], 2), "s", f"~ the floor ({res['floor_s']:.1f} s)"
                         if phase == "create" else None)
            yield figure(f"csi n={n}: DVP HTTP requests per volume, {phase}",
                         round(res[f"{phase}_http_per_volume"], 2), "requests", "constant in n")
    for n in sizes():  # the serial attachment path (DVP's one VMBDA worker, CONTRACT.md C8) at a fixed request cost
        res = lifecycle_flat(n)
        for phase in ("publish", "unpublish"):
            yield figure(f"csi n={n}: {phase} of {n} volumes ({res['nodes']} nodes) on the in-memory DVP API "
                         f"({RTT_S * 1000:g} ms per request), wall time", round(res[f"{phase}_s"], 2), "s")
    if len(curve) > 1:
        for phase in PHASES:
            yield figure(f"csi: DVP HTTP requests per volume, {phase}, n={max(curve)} over n={min(curve)}",
                         growth({n: r[f"{phase}_http_per_volume"] for n, r in curve.items()}), "ratio",
                         "<= 1.1 (constant in n)")
    from sim.memory_api import MemoryApi
    from testkit.harness.apiserver import ControlPlane, dvp_crd_files

    with tempfile.TemporaryDirectory() as tmp:
        memory = MemoryApi(latency=RTT_S)
        seeded(memory)
        res = driver_figures(memory, Path(tmp) / "a")
        yield figure("csi: CreateVolume driver overhead beyond DVP, p50", res["overhead_p50_ms"], "ms", "<= 5")
        yield figure("csi: CreateVolume driver overhead beyond DVP, p99", res["overhead_p99_ms"], "ms", "<= 20")
        yield figure(f"csi: {CONCURRENT} concurrent CreateVolume, all done (DVP provisions each in {PROVISION_S:g} s)",
                     concurrent_s(memory, Path(tmp) / "b", "bench-csi-b"), "s", f"<= {PROVISION_S + 2:g}")
        yield figure("csi: DVP HTTP requests per CreateVolume (watch-based wait = LIST + WATCH)",
                     res["http_per_create"], "requests", "<= 4")
        yield figure("csi: DVP HTTP requests per ControllerPublishVolume", res["http_per_publish"], "requests",
                     "<= 6")
        yield figure("csi: GetCapacity (quota headroom from the ResourceQuota informer), p50",
                     res["capacity_p50_ms"], "ms", "<= 2")
        yield figure(f"csi: DVP HTTP requests per GetCapacity, steady state (mean of {CAPACITY_CALLS})",
                     res["http_per_capacity"], "requests", "0")
        with ControlPlane() as plane:
            plane.start({"dvp": ("AlwaysAllow", dvp_crd_files())})
            api = plane.servers["dvp"]
            seeded(api)
            yield figure(f"csi: {CONCURRENT} concurrent CreateVolume on kube-apiserver with the DVP simulator "
                         f"(provisions each in {PROVISION_S:g} s; the simulated DVP's cost, not the driver's)",
                         concurrent_s(api, Path(tmp) / "c", "bench-csi-c"), "s", None)

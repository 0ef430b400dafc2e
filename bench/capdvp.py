# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp: n machines (bench.measure.sizes; 100 for the in-memory run) against a DVP with simulated latencies.

Two set-ups, the same production reconcilers:

* `run_real()`: the whole controller (python -m capdvp's Manager: informers, cached reads, workers) against real
  kube-apiservers (testkit/harness) with sim playing DVP: disks provision in DISK_S, VMs start in BOOT_S.
  The simulator runs as its own process (`python -m sim`), for the floor and for capdvp alike: DVP's
  controllers never share the provider's interpreter, and in one process the two took turns on one GIL.
  The simulator's floor for one machine is the sum of the latencies on its chain; the floor of 100 machines is the
  simulator alone on them (created directly by WORKERS writers); capdvp should provision all 100 within that
  floor + 10 s, and within 1.5x the floor at 1000. Floor and capdvp run twice each, in the order floor, capdvp,
  capdvp, floor, and the means are compared: the 2 cores are shared with other jobs whose load drifts (from
  n = 1000 once each, floor then capdvp: each takes minutes). Every run ends by deleting its machines: the time
  until every DVP object of the run is gone is measured too. DVP requests per machine come from the DVP
  client's own counters (informer LIST/WATCH included). Every run observes its objects through watches (a LIST
  of 100 objects every 0.2 s loaded the API servers and the process being measured).
* `run()`: the reconcilers and runner over the in-memory API of tests/capdvp (testkit.capdvp.world on
  sim.memory_api) with a round trip per request and a small scheduler playing DVP (no processes needed): isolates
  capdvp's own cost.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from capdvp import resources as r
from capdvp.controllers.machine import MachineReconciler
from capdvp.runner import Controller

from bench.measure import figure, growth, peak_rss_mib, sizes
from testkit.capdvp.world import DVP_NS, NS, World

MACHINES = 100
DISKS_PER_MACHINE = 2  # boot + one additional disk, in the real runs
RTT_S = 0.005  # per API call
DISK_S = 2.0
BOOT_S = 3.0
WORKERS = 16
TIMEOUT_S = 120.0
REAL_TIMEOUT_S = 400.0  # per run of 100: the simulator and the API servers share 2 cores with whatever else runs
ORDER = ("floor", "capdvp", "capdvp", "floor")  # ABBA
ONCE_FROM = 1000  # from this n each side runs once (ORDER_ONCE)
ORDER_ONCE = ("floor", "capdvp")
STORAGE_CLASS, FLOOR_CLASS, FLOOR_IMAGE = "bench-sc", "bench-floor", "bench-floor"


class DvpScheduler(threading.Thread):
    """Plays DVP: a VM whose Secret and disks all exist runs DISK_S + BOOT_S later; a watch event follows."""

    def __init__(self, world: World, notify) -> None:
        super().__init__(daemon=True)
        self.world, self.notify, self.stop = world, notify, threading.Event()
        self.complete_at: dict[str, float] = {}

    def run(self) -> None:
        dvp = self.world.dvp
        while not self.stop.wait(0.02):
            now = time.monotonic()
            objects = {(o["kind"], DVP_NS, o["metadata"]["name"]) for res in (r.SECRET, r.VIRTUAL_DISK)
                       for o in dvp.items(res, DVP_NS)}
            for vm in dvp.items(r.VIRTUAL_MACHINE, DVP_NS):
                name = vm["metadata"]["name"]
                if (vm.get("status") or {}).get("phase") == "Running":
                    continue
                needs = [("Secret", DVP_NS, vm["spec"]["provisioning"]["userDataRef"]["name"])] + [
                    ("VirtualDisk", DVP_NS, ref["name"]) for ref in vm["spec"]["blockDeviceRefs"]]
                if not all(n in objects for n in needs):
                    continue
                due = self.complete_at.setdefault(name, now + DISK_S + BOOT_S)
                if now >= due:
                    self.world.vm_phase(name, "Running", "10.10.0.1")
                    self.notify(NS, name)  # the VM watch event


def run(machines: int = MACHINES) -> dict:
    world = World(latency=RTT_S)
    ctl = Controller("deckhousemachine", MachineReconciler(world.ctx).reconcile, workers=WORKERS)
    names = [f"worker-{i:03d}" for i in range(machines)]
    for n in names:
        world.capi_machine(n)
    sim = DvpScheduler(world, ctl.enqueue)
    sim.start()
    ctl.start()
    started = time.monotonic()
    for n in names:
        ctl.enqueue(NS, n)  # the informer's initial list
    pending = set(names)
    while pending and time.monotonic() - started < TIMEOUT_S:
        time.sleep(0.02)
        pending = {n for n in pending
                   if not ((world.dm(n).get("status") or {}).get("initialization") or {}).get("provisioned")}
    wall = time.monotonic() - started
    ctl.stop()
    sim.stop.set()
    if pending:
        raise RuntimeError(f"{len(pending)} of {machines} machines not provisioned within {TIMEOUT_S:g}s")
    return {"machines": machines, "wall_s": wall, "floor_s": DISK_S + BOOT_S,
            "dvp_reads_per_machine": world.dvp.reads() / machines,
            "dvp_writes_per_machine": len(world.dvp.writes()) / machines,
            "guest_writes_per_machine": len(world.guest.writes()) / machines,
            "vms": len(world.dvp.items(r.VIRTUAL_MACHINE))}


def timeout_s(machines: int) -> float:
    """A run's bound: REAL_TIMEOUT_S up to 100 machines, then proportional."""
    return REAL_TIMEOUT_S * max(1.0, machines / MACHINES)


class SimProcess:
    """`python -m sim` scoped to one namespace, from the moment it says it runs (its informers synced)."""

    def __init__(self, kubeconfig: str, namespace: str, latency: dict[str, float], default: float,
                 ip_pool: str) -> None:
        self.kubeconfig, self.namespace, self.latency, self.default = kubeconfig, namespace, latency, default
        self.ip_pool = ip_pool  # leases are cluster-wide and runs leave their VMs: a /24 per run
        self.dir = Path(tempfile.mkdtemp(prefix="bench-capdvp-sim-"))
        self.log = self.dir / "dvp_sim.log"
        self.proc: subprocess.Popen | None = None
        self.peak_rss_mib = 0.0

    def __enter__(self) -> SimProcess:
        config = self.dir / "dvp.kubeconfig"
        config.touch(mode=0o600)
        config.write_text(self.kubeconfig)
        argv = [sys.executable, "-m", "sim", "--kubeconfig", str(config), "--namespace", self.namespace,
                "--default-latency", str(self.default), "--ip-pool", self.ip_pool]
        for key, seconds in self.latency.items():
            argv += ["--latency", f"{key}={seconds}"]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log)
        assert self.proc.stdout is not None
        ready = threading.Thread(target=self.proc.stdout.readline, daemon=True)  # "dvp_sim: running (...)"
        ready.start()
        ready.join(60)
        if ready.is_alive() or self.proc.poll() is not None:
            why = self.tail()
            self.__exit__()
            raise RuntimeError(f"bench: dvp_sim did not start within 60s: {why}")
        return self

    def tail(self) -> str:
        lines = self.log.read_text(errors="replace").strip().splitlines() if self.log.exists() else []
        return lines[-1] if lines else "(no output)"

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.peak_rss_mib = peak_rss_mib(self.proc.pid)
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)  # the kubeconfig holds an admin token


class Watcher:
    """When `count` objects of one kind first satisfy `done` (or, with `done=None`, were deleted), as a watch
    reports them."""

    def __init__(self, client, res, namespace: str, done, count: int) -> None:
        from dvp_common.runtime import Informer

        self.informer = Informer(client, res, namespace, watch_timeout=5)
        self.done, self.count = done, count
        self.names: set[str] = set()
        self.at: float | None = None
        self.reached = threading.Event()
        if done is None:
            self.informer.add_handlers(on_delete=self._gone)
        else:
            self.informer.add_handlers(on_add=self._seen, on_update=lambda _old, new: self._seen(new))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.informer.run, args=(self._stop,), daemon=True)

    def _seen(self, obj: dict) -> None:
        name = obj["metadata"]["name"]
        if self.done(obj):
            self.names.add(name)
        else:
            self.names.discard(name)
        if self.at is None and len(self.names) >= self.count:
            self.at = time.monotonic()
            self.reached.set()

    def _gone(self, obj: dict) -> None:
        self.names.add(obj["metadata"]["name"])
        if self.at is None and len(self.names) >= self.count:
            self.at = time.monotonic()
            self.reached.set()

    def __enter__(self) -> Watcher:
        self._thread.start()
        if not self.informer.synced.wait(30):
            self._stop.set()
            raise RuntimeError(f"bench: the {self.informer.resource.kind} watch did not sync within 30s")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)


def _running(vm: dict) -> bool:
    return (vm.get("status") or {}).get("phase") == "Running"


def _provisioned(dm: dict) -> bool:
    return bool(((dm.get("status") or {}).get("initialization") or {}).get("provisioned"))


def _reasons(dms: Watcher, pending: set[str]) -> list[tuple[str, int]]:
    """The three commonest Ready messages of the machines not provisioned."""
    reasons: dict[str, int] = {}
    for o in dms.informer.items():
        if o["metadata"]["name"] in pending:
            ready = next((c for c in (o.get("status") or {}).get("conditions") or [] if c["type"] == "Ready"), {})
            why = ready.get("message") or ready.get("reason") or "no status"
            reasons[why] = reasons.get(why, 0) + 1
    return sorted(reasons.items(), key=lambda kv: -kv[1])[:3]


def _sim_floor(dvp_api, spec: dict, machines: int, latency: dict, default: float, ip_pool: str) -> dict:
    """The simulator alone: the same VMs, Secrets and disks created directly (WORKERS writers), until all run;
    then the VMs deleted, until Kubernetes' garbage collector (beside the DVP API server) removed every disk."""
    from concurrent.futures import ThreadPoolExecutor

    from capdvp.domain import manifests
    from capdvp.domain.machine_spec import parse_spec
    from dvp_common.kube import Transient

    ns, uuid = dvp_api.create_namespace("floor"), "floor-uuid"
    sim = SimProcess(dvp_api.kubeconfig(), ns, latency, default, ip_pool).__enter__()
    client = dvp_api.client()
    parsed = parse_spec(spec)

    def create(res, body: dict) -> dict:
        """As a controller would: a 5xx (DVP's admission webhook drops calls on a loaded machine) is retried, and
        a create that landed before its answer was lost is found."""
        for attempt in range(5):
            try:
                return client.create(res, body, ns, get_existing=True)
            except Transient:
                time.sleep(0.5 * 2**attempt)
        return client.create(res, body, ns, get_existing=True)

    def make(name: str) -> None:
        vm = create(r.VIRTUAL_MACHINE, manifests.virtual_machine(name, parsed, uuid, False))
        for obj in manifests.owned_objects(name, parsed, uuid, vm, b"#cloud-config\n"):
            create(r.SECRET if obj["kind"] == "Secret" else r.VIRTUAL_DISK, obj)

    limit, names = timeout_s(machines), [f"floor-{i:04d}" for i in range(machines)]
    try:
        with Watcher(client, r.VIRTUAL_MACHINE, ns, _running, machines) as vms, \
                Watcher(client, r.VIRTUAL_DISK, ns, None, DISKS_PER_MACHINE * machines) as disks:
            started = time.monotonic()
            with ThreadPoolExecutor(WORKERS) as pool:
                list(pool.map(make, names))
            if not (vms.reached.wait(max(0.0, limit - (time.monotonic() - started))) and vms.at is not None):
                raise RuntimeError(f"the simulator alone did not run {machines} VMs within {limit:g}s; "
                                   f"dvp_sim: {sim.tail()}")
            up = vms.at - started
            deleting = time.monotonic()
            with ThreadPoolExecutor(WORKERS) as pool:
                list(pool.map(lambda n: client.delete(r.VIRTUAL_MACHINE, n, ns), names))
            if not (disks.reached.wait(limit) and disks.at is not None):
                raise RuntimeError(f"the garbage collector did not remove {machines} machines' disks within "
                                   f"{limit:g}s")
            return {"up_s": up, "delete_s": disks.at - deleting}
    finally:
        sim.__exit__()
        client.close()


def _capdvp_once(dvp_api, guest_api, machines: int, latency: dict, default: float, ip_pool: str) -> dict:
    """capdvp's Manager on fresh namespaces with the simulator scoped to its DVP one: 100 machines to provisioned."""
    from concurrent.futures import ThreadPoolExecutor

    from capdvp.manager import Manager
    from capdvp.settings import Settings
    from dvp_common.dvp.connection import DVPConnection, DVPSettings

    from testkit.capdvp.real import RealEnv

    env = RealEnv(dvp_api, guest_api)
    spec = env.spec(rootDiskStorageClass=STORAGE_CLASS,
                    additionalDisks=[{"size": "1Gi", "storageClass": STORAGE_CLASS}])
    sim = SimProcess(dvp_api.kubeconfig(), env.dvp_ns, latency, default, ip_pool).__enter__()
    dvp_conn = DVPConnection(dvp_api.client(), env.dvp_ns, env.uuid)
    settings = Settings(dvp=DVPSettings(dvp_api.kubeconfig(), env.dvp_ns, env.uuid), reconcile=env.config,
                        watch_namespace=env.ns, health_bind=None, metrics_bind=None, webhook_bind=None,
                        workers=WORKERS)
    manager = Manager(settings, guest_api.client(), dvp_conn)
    manager.start()
    limit = timeout_s(machines)
    try:
        with Watcher(env.dvp, r.VIRTUAL_MACHINE, env.dvp_ns, _running, machines) as vms, \
                Watcher(env.guest, r.DECKHOUSE_MACHINE, env.ns, _provisioned, machines) as dms, \
                Watcher(env.dvp, r.VIRTUAL_DISK, env.dvp_ns, None, DISKS_PER_MACHINE * machines) as disks:
            started = time.monotonic()
            names = [f"worker-{i:04d}" for i in range(machines)]
            # As fast as the floor's writers: CAPI's MachineSet controller creates replicas concurrently too.
            with ThreadPoolExecutor(WORKERS) as pool:
                list(pool.map(lambda n: env.capi_machine(n, spec), names))
            created = time.monotonic() - started
            dms.reached.wait(max(0.0, limit - created))
            wall = (dms.at if dms.at is not None else time.monotonic()) - started
            vms_running = vms.at - started if vms.at is not None else None
            pending = set(names) - dms.names
            if pending:
                raise RuntimeError(f"{len(pending)} of {machines} machines not provisioned within "
                                   f"{limit:g}s; e.g. {_reasons(dms, pending)}; dvp_sim: {sim.tail()}")
            counts = dvp_conn.client.metrics.snapshot()
            rss_up = _rss_mib()
            deleting = time.monotonic()
            with ThreadPoolExecutor(WORKERS) as pool:  # what CAPI does to a deleted Machine's infrastructure
                list(pool.map(lambda n: env.guest.delete(r.DECKHOUSE_MACHINE, n, env.ns), names))
            if not (disks.reached.wait(limit) and disks.at is not None):
                raise RuntimeError(f"capdvp did not remove {machines} machines' disks within {limit:g}s")
            delete_s = disks.at - deleting
            all_counts = dvp_conn.client.metrics.snapshot()
    finally:
        manager.shutdown()
        sim.__exit__()
        env.close()
    deletes = {k: all_counts.get(k, 0) - counts.get(k, 0) for k in all_counts}
    reads = sum(n for k, n in counts.items() if k.split()[0] in ("get", "list", "watch"))
    writes = sum(n for k, n in counts.items() if k.split()[0] in ("create", "patch", "update", "delete"))
    return {"wall_s": wall, "create_s": created, "vms_running_s": vms_running, "dvp_reads": reads,
            "dvp_writes": writes, "dvp_requests": counts, "delete_s": delete_s,
            "delete_requests": sum(deletes.values()), "sim_rss_mib": sim.peak_rss_mib, "rss_up_mib": rss_up}


def _rss_mib() -> float:
    """This process's resident set now: the bench with capdvp's Manager and its caches, and the watchers'."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def run_real(machines: int = MACHINES, order: tuple[str, ...] | None = None) -> dict:
    """The floor and capdvp in `order` on one pair of API servers; means of each (ABBA: linear drift of the
    machine's load, e.g. another job's tests starting, falls on both sides alike)."""
    from sim import seed
    from testkit.capdvp.real import SPEC
    from testkit.harness.apiserver import ControlPlane, dvp_crd_files, guest_crd_files

    order = order or (ORDER_ONCE if machines >= ONCE_FROM else ORDER)

    latency = {"VirtualDisk.Provisioning": DISK_S, "VirtualMachine.Starting": BOOT_S}
    default = 0.05
    # Disk: Pending, Provisioning; VM: Pending, Starting (its address binds meanwhile); one default step each else.
    chain = DISK_S + BOOT_S + 2 * default
    floors: list[dict] = []
    runs: list[dict] = []
    with ControlPlane() as plane:
        plane.start({"dvp": ("AlwaysAllow", dvp_crd_files()), "guest": ("AlwaysAllow", guest_crd_files())})
        dvp_api, guest_api = plane.servers["dvp"], plane.servers["guest"]
        client = dvp_api.client()
        try:
            seed.storage_class(client, STORAGE_CLASS)
            seed.vm_class(client, FLOOR_CLASS)
            seed.cluster_image(client, FLOOR_IMAGE)
        finally:
            client.close()
        floor_spec = {**SPEC, "vmClassName": FLOOR_CLASS, "rootDiskStorageClass": STORAGE_CLASS,
                      "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": FLOOR_IMAGE},
                      "additionalDisks": [{"size": "1Gi", "storageClass": STORAGE_CLASS}]}
        for i, what in enumerate(order):
            pool = f"10.{66 + i}.0.0/20"  # 4093 addresses: leases are cluster-wide and runs leave theirs
            if what == "floor":
                floors.append(_sim_floor(dvp_api, floor_spec, machines, latency, default, pool))
            else:
                runs.append(_capdvp_once(dvp_api, guest_api, machines, latency, default, pool))
    n = max(1, len(runs))
    return {"machines": machines, "floor_s": chain, "order": order,
            "sim_floors_s": [f["up_s"] for f in floors], "walls_s": [x["wall_s"] for x in runs],
            "sim_floor_s": sum(f["up_s"] for f in floors) / len(floors), "wall_s": sum(x["wall_s"] for x in runs) / n,
            "sim_delete_floor_s": sum(f["delete_s"] for f in floors) / len(floors),
            "delete_s": sum(x["delete_s"] for x in runs) / n,
            "delete_requests_per_machine": sum(x["delete_requests"] for x in runs) / n / machines,
            "sim_rss_mib": max(x["sim_rss_mib"] for x in runs), "bench_rss_mib": max(x["rss_up_mib"] for x in runs),
            "create_s": [x["create_s"] for x in runs], "vms_running_s": [x["vms_running_s"] for x in runs],
            "dvp_reads_per_machine": sum(x["dvp_reads"] for x in runs) / n / machines,
            "dvp_writes_per_machine": sum(x["dvp_writes"] for x in runs) / n / machines,
            "dvp_requests": runs[0]["dvp_requests"] if runs else {}}


def figures():
    reals = {n: run_real(n) for n in sizes()}
    for n, real in reals.items():
        floor = real["sim_floor_s"]
        runs = ", ".join(f"{w:.1f}" for w in real["walls_s"])
        floors = ", ".join(f"{f:.1f}" for f in real["sim_floors_s"])
        goal = f"<= {1.5 * floor:.1f} (1.5x" if n >= ONCE_FROM else f"<= {floor + 10:.1f} (+ 10 s over"
        yield figure(f"capdvp (real API + dvp_sim) n={n}: {n} machines, wall time to all provisioned",
                     round(real["wall_s"], 2), "s",
                     f"{goal} the simulator alone on the same {n} machines; means, run in the order "
                     f"{'-'.join(real['order'])}: capdvp {runs}, floor {floors})")
        yield figure(f"capdvp (real API + dvp_sim) n={n}: simulator floor, {n} machines created directly",
                     round(floor, 2), "s")
        yield figure(f"capdvp (real API + dvp_sim) n={n}: wall time over the simulator floor",
                     round(real["wall_s"] / floor, 2), "ratio", "<= 1.5" if n >= ONCE_FROM else None)
        yield figure(f"capdvp (real API + dvp_sim) n={n}: {n} machines deleted, until every disk is gone",
                     round(real["delete_s"], 2), "s",
                     f"the simulator alone (VMs deleted, disks collected by Kubernetes' garbage collector): "
                     f"{real['sim_delete_floor_s']:.1f} s")
        yield figure(f"capdvp (real API + dvp_sim) n={n}: DVP reads (get/list/watch requests) per machine",
                     round(real["dvp_reads_per_machine"], 2), "calls")
        yield figure(f"capdvp (real API + dvp_sim) n={n}: DVP writes per machine",
                     round(real["dvp_writes_per_machine"], 2), "calls", "= objects created (VM, Secret, disks)")
        yield figure(f"capdvp (real API + dvp_sim) n={n}: DVP requests per machine deleted",
                     round(real["delete_requests_per_machine"], 2), "calls")
        yield figure(f"capdvp (real API + dvp_sim) n={n}: peak RSS of python -m sim", real["sim_rss_mib"], "MiB")
        yield figure(f"capdvp (real API + dvp_sim) n={n}: RSS of the bench process with capdvp's Manager, all "
                     "provisioned", round(real["bench_rss_mib"], 1), "MiB")
    yield figure("capdvp (real API + dvp_sim): simulator floor, one machine's latency chain",
                 next(iter(reals.values()))["floor_s"], "s")
    if len(reals) > 1:
        for what in ("dvp_reads_per_machine", "dvp_writes_per_machine", "delete_requests_per_machine"):
            yield figure(f"capdvp (real API + dvp_sim): {what.replace('_', ' ')}, n={max(reals)} over n={min(reals)}",
                         growth({n: r[what] for n, r in reals.items()}), "ratio", "<= 1.0 (constant in n or falling: "
                         "the informers' LIST and WATCH are shared by every machine)")
    res = run()
    floor = res["floor_s"]
    yield figure(f"capdvp (in-memory API): {res['machines']} machines, wall time to all provisioned",
                 round(res["wall_s"], 2), "s", f"<= {floor + 10:g} (simulator floor {floor:g} s + 10 s)")
    yield figure("capdvp (in-memory API): DVP reads per machine", round(res["dvp_reads_per_machine"], 2), "calls")
    yield figure("capdvp (in-memory API): DVP writes per machine", round(res["dvp_writes_per_machine"], 2), "calls",
                 "= objects created (VM, Secret, disks)")
    yield figure("capdvp (in-memory API): guest writes per machine", round(res["guest_writes_per_machine"], 2), "calls")

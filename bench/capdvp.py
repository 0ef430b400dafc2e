# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""capdvp: 100 machines against a DVP with simulated latencies.

Each API call costs a round trip; DVP provisions a machine's disks in DISK_S and boots its VM in BOOT_S once
every object it needs exists. The simulator's floor for one machine is DISK_S + BOOT_S; with machines
proceeding in parallel, all 100 should be provisioned within floor + 10 s. Reads and writes are DVP API calls
per machine (status patches and finalizers are guest-side and counted apart).

Until tests/dvp_sim and the real-API harness land, the DVP side is the in-memory API of tests/capdvp with a
small scheduler playing DVP's controllers; the reconcilers and the controller runner are the production ones.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from bench.measure import figure

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "capdvp"))

from capdvp import resources as r  # noqa: E402
from capdvp.controllers.context import Context  # noqa: E402
from capdvp.controllers.machine import MachineReconciler  # noqa: E402
from capdvp.runner import Controller  # noqa: E402
from capdvp_world import DVP_NS, NS, World  # noqa: E402

MACHINES = 100
RTT_S = 0.005  # per API call
DISK_S = 2.0
BOOT_S = 3.0
WORKERS = 16
TIMEOUT_S = 120.0


class Latency:
    """Adds a round trip to every call of the wrapped API (sleeps outside its lock, like a network)."""

    def __init__(self, api, rtt: float) -> None:
        self.api, self.rtt = api, rtt

    def __getattr__(self, name):
        target = getattr(self.api, name)
        if name not in ("get", "list", "create", "patch", "delete"):
            return target

        def call(*args, **kwargs):
            time.sleep(self.rtt)
            return target(*args, **kwargs)
        return call


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
            with dvp.lock:
                objects = set(dvp.objects)
                vms = [o for (k, _, _), o in dvp.objects.items() if k == "VirtualMachine"]
            for vm in vms:
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
    world = World()
    world.ctx = Context(Latency(world.guest, RTT_S), Latency(world.dvp, RTT_S), world.config)
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
            "dvp_writes_per_machine": world.dvp.writes() / machines,
            "guest_writes_per_machine": world.guest.writes() / machines,
            "vms": len(world.dvp.kinds(r.VIRTUAL_MACHINE.kind))}


def figures():
    res = run()
    floor = res["floor_s"]
    yield figure(f"capdvp: {res['machines']} machines, wall time to all provisioned", round(res["wall_s"], 2), "s",
                 f"<= {floor + 10:g} (simulator floor {floor:g} s + 10 s)")
    yield figure("capdvp: simulator floor for one machine", floor, "s")
    yield figure("capdvp: DVP reads per machine", round(res["dvp_reads_per_machine"], 2), "calls")
    yield figure("capdvp: DVP writes per machine", round(res["dvp_writes_per_machine"], 2), "calls",
                 "= objects created (VM, Secret, disks)")
    yield figure("capdvp: guest writes per machine", round(res["guest_writes_per_machine"], 2), "calls")

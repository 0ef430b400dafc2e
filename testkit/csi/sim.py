# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CSI driver on a real kube-apiserver with the DVP simulator (sim) playing DVP's controllers.

This is the one model of DVP the CSI tests use. VMs are made the way capdvp makes them (boot disk from an image,
our labels) and run through the simulator's phases. A small "udev" thread backs every disk DVP shows attached to
a node's VM with a loop device and its /dev/disk/by-id link (csi_loopdev), so node specs run on real block devices.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dvp_common.dvp import disk_state
from dvp_common.dvp import resources as r
from dvp_common.kube import Conflict, KubeClient, NotFound
from dvp_common.kube.faults import FaultHook
from dvp_csi.access import Dvp
from dvp_csi.domain import labels

from sim import SimConfig, Simulator, seed
from sim.builders import disk as disk_body
from sim.builders import phase_is, vmop
from sim.builders import vm as vm_body
from testkit.csi.env import CLUSTER, NODE, Running, make_settings, serve
from testkit.csi.loopdev import LoopDevices

STORAGE_CLASS = "sim-fast"
WFFC_CLASS = "sim-wffc"
CLASSES = {STORAGE_CLASS: "Immediate", "fast": "Immediate", "slow": "Immediate", WFFC_CLASS: "WaitForFirstConsumer",
           "wffc": "WaitForFirstConsumer"}
MISSING_CLASS = "no-such-class"  # DVP keeps its disks Pending with Ready=False/StorageClassIsNotReady
LATENCY = 0.02  # seconds per simulated phase
WAIT = 30.0
NODES = {NODE: "vm-worker-0", "worker-1": "vm-worker-1"}
KINDS = (r.VIRTUAL_DISK, r.VMBDA, r.VIRTUAL_DISK_SNAPSHOT, r.VIRTUAL_MACHINE)


@dataclass
class SimEnv:
    csi: Running
    sim: Simulator
    dvp: KubeClient  # admin client on the DVP API
    ns: str
    driver_client: KubeClient
    udev: Udev | None = None

    def names(self, res) -> list[str]:
        return sorted(o["metadata"]["name"] for o in self.dvp.list(res, self.ns).items)

    def get(self, res, name: str) -> dict | None:
        try:
            return self.dvp.get(res, name, self.ns)
        except NotFound:
            return None

    def items(self, res) -> list[dict]:
        return sorted(self.dvp.list(res, self.ns).items, key=lambda o: o["metadata"]["name"])

    def state(self) -> dict:
        """Every object of the namespace with its resourceVersion: equal states mean nothing was written."""
        return {(res.kind, o["metadata"]["name"]): o["metadata"]["resourceVersion"]
                for res in KINDS for o in self.dvp.list(res, self.ns).items}

    def wait(self, res, name: str, predicate, timeout: float = WAIT) -> dict | None:
        return self.dvp.wait_for(res, name, predicate, timeout, self.ns)

    def put_disk(self, name: str, lbls: dict[str, str], size: str = "1Gi", storage_class: str = STORAGE_CLASS,
                 settle: bool = True) -> dict:
        """A disk made by someone else (another cluster, capdvp, an admin), as DVP holds it once Ready."""
        body = disk_body(name, size, storage_class)
        body["metadata"]["labels"] = lbls
        self.dvp.create(r.VIRTUAL_DISK, body, self.ns)
        return self.wait(r.VIRTUAL_DISK, name, phase_is("Ready")) if settle else body

    def add_vm(self, name: str, hostname: str, cluster_uuid: str = CLUSTER, static_disks: int = 2,
               run_policy: str | None = None) -> dict:
        return add_vm(self.dvp, self.ns, name, hostname, cluster_uuid, static_disks, run_policy)

    def stop_vm(self, name: str) -> dict:
        """Stop a VM as a user would (a Stop operation), until DVP reports it Stopped."""
        self.dvp.create(r.VIRTUAL_MACHINE_OPERATION, vmop(f"stop-{name}", name, "Stop"), self.ns)
        return self.wait(r.VIRTUAL_MACHINE, name, phase_is("Stopped"))

    def delete_vm(self, name: str) -> None:
        self.dvp.delete(r.VIRTUAL_MACHINE, name, self.ns)
        self.wait(r.VIRTUAL_MACHINE, name, lambda o: o is None)

    def hold(self, res, name: str, finalizer: str = "test.csi/hold") -> None:
        """Keep an object Terminating after its delete (as a finalizer of DVP's own would)."""
        self._finalizers(res, name, lambda fins: [*fins, finalizer])

    def release(self, res, name: str, finalizer: str = "test.csi/hold") -> None:
        self._finalizers(res, name, lambda fins: [f for f in fins if f != finalizer])

    def _finalizers(self, res, name: str, change) -> None:
        """An optimistic write of the finalizers, re-read and redone while the simulator writes the object too."""
        for _ in range(50):
            obj = self.dvp.get(res, name, self.ns)
            fins = change(list(obj["metadata"].get("finalizers") or []))
            try:
                self.dvp.patch(res, name, {"metadata": {"finalizers": fins or None,
                                                        "resourceVersion": obj["metadata"]["resourceVersion"]}},
                               self.ns)
                return
            except Conflict:
                continue
        raise AssertionError(f"{res.kind} {name}: finalizers never written (50 conflicts)")

    def replace(self, res, name: str, body: dict) -> dict:
        """Delete `name` for good (finalizers dropped) and create `body`, a same-named object, in its place."""
        old = self.dvp.get(res, name, self.ns)
        self.dvp.delete(res, name, self.ns, missing_ok=True)
        obj = self.get(res, name)
        if obj is not None and obj["metadata"].get("finalizers"):
            with contextlib.suppress(NotFound):  # DVP let go of it meanwhile
                self.dvp.patch(res, name, {"metadata": {"finalizers": None}}, self.ns)
        self.wait(res, name, lambda o: o is None or o["metadata"]["uid"] != old["metadata"]["uid"])
        return self.dvp.create(res, body, self.ns)


def add_vm(client: KubeClient, ns: str, name: str, hostname: str, cluster_uuid: str = CLUSTER,
           static_disks: int = 2, run_policy: str | None = None) -> dict:
    """A VM as capdvp makes it: boot disk from the cluster image, additional disks, our labels."""
    owned = {labels.CLUSTER_UUID: cluster_uuid, labels.COMPONENT: "capdvp", labels.MANAGED_BY: "deckhouse",
             labels.HOSTNAME: hostname}
    names = [f"{name}-boot"] + [f"{name}-additional-disk-{i}" for i in range(static_disks - 1)]
    for i, disk_name in enumerate(names):
        body = disk_body(disk_name, "2Gi" if i == 0 else "64Mi", STORAGE_CLASS,
                         ("ClusterVirtualImage", "ubuntu") if i == 0 else None)
        body["metadata"]["labels"] = owned
        client.create(r.VIRTUAL_DISK, body, ns)
    body = vm_body(name, names, run_policy=run_policy)
    body["metadata"]["labels"] = owned
    client.create(r.VIRTUAL_MACHINE, body, ns)
    if run_policy in ("AlwaysOff", "Manual"):
        return client.wait_for(r.VIRTUAL_MACHINE, name, phase_is("Stopped"), WAIT, ns)
    vm = client.wait_for(r.VIRTUAL_MACHINE, name, phase_is("Running"), WAIT, ns)
    for disk_name in names:  # settled: DVP lists the running VM on each of its disks
        client.wait_for(r.VIRTUAL_DISK, disk_name, lambda d: name in disk_state.attached_vms(d), WAIT, ns)
    return vm


class Udev:
    """Loop devices for the disks DVP shows attached to `vm` (a node's VM), as hot-plug + udev would."""

    def __init__(self, client: KubeClient, ns: str, vm: str, loops: LoopDevices) -> None:
        self.client, self.ns, self.vm, self.loops = client, ns, vm, loops
        self.sizes: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="udev", daemon=True)
        self.errors: list[str] = []
        self._passes = 0
        self._passed = threading.Condition()

    def start(self) -> Udev:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.sync()
            except Exception as exc:  # keep going; the test asserts errors == []
                self.errors.append(f"{type(exc).__name__}: {exc}")
            with self._passed:
                self._passes += 1
                self._passed.notify_all()

    def settled(self, timeout: float = WAIT) -> None:
        """Until a whole pass started after this call has run: the devices then match what DVP shows now."""
        with self._passed:
            want = self._passes + 2
            assert self._passed.wait_for(lambda: self._passes >= want, timeout), "udev did not run"

    def sync(self) -> None:
        seen = set()
        for d in self.client.list(r.VIRTUAL_DISK, self.ns).items:
            uid = d["metadata"]["uid"]
            if self.vm in disk_state.attached_vms(d) and d["metadata"]["name"].startswith("pvc-"):
                seen.add(uid)
                size = disk_state.capacity_bytes(d)
                if uid not in self.loops.loops:
                    self.loops.attach(d, {})
                elif size > self.sizes.get(uid, 0):
                    self.loops.resize(d)
                self.sizes[uid] = size
        for uid in set(self.loops.loops) - seen:
            self.loops.detach({"metadata": {"uid": uid}}, {})


def sim_env(dvp_api, tmp_path: Path, loops: LoopDevices | None = None, *, nodes: dict[str, str] | None = None,
            sim: SimConfig | None = None, faults: FaultHook | None = None, dvp: Dvp | None = None,
            os_ops=None, **settings) -> Iterator[SimEnv]:
    """`nodes`: guest node -> VM (default NODES); `sim`: the simulator's config (its namespace is set here);
    `faults`: a hook on the driver's own client, run before each of its requests; `dvp`: the driver's DVP access
    instead of one over its own client."""
    admin = dvp_api.client()
    for name, mode in CLASSES.items():
        seed.storage_class(admin, name, binding_mode=mode)
    seed.vm_class(admin, "generic")
    seed.cluster_image(admin, "ubuntu")
    ns = dvp_api.create_namespace("csi")
    cfg = dataclasses.replace(sim or SimConfig(default_latency=LATENCY, watch_timeout=1), namespace=ns)
    simulator = Simulator(dvp_api.client(), cfg).start()
    driver_client = dvp_api.client(faults=faults) if faults else dvp_api.client()
    udev = None
    try:
        for hostname, vm in (NODES if nodes is None else nodes).items():
            add_vm(admin, ns, vm, hostname)
        if loops is not None:
            udev = Udev(dvp_api.client(), ns, NODES[NODE], loops).start()
        s = make_settings(tmp_path, namespace=ns, **settings)
        for running in serve(s, dvp or Dvp.over(driver_client, ns, s.cluster_uuid or CLUSTER), os_ops):
            yield SimEnv(running, simulator, admin, ns, driver_client, udev)
        if udev is not None:
            assert udev.errors == []
    finally:
        if udev is not None:
            udev.stop()
        simulator.stop()
        simulator.client.close()
        admin.close()
        driver_client.close()

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CSI driver on a real kube-apiserver with the DVP simulator (testkit/dvp_sim) playing DVP's controllers.

VMs are made the way capdvp makes them (boot disk from an image, our labels) and run through the simulator's
phases. A small "udev" thread backs every disk DVP shows attached to a node's VM with a loop device and its
/dev/disk/by-id link (csi_loopdev), so node specs run on real block devices.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from csi_env import CLUSTER, NODE, Running, make_settings, serve
from csi_loopdev import LoopDevices
from dvp_common.dvp import resources as r
from dvp_common.kube import KubeClient
from dvp_csi.domain import disks, labels
from dvp_csi.dvp.kube import KubeDvp
from dvp_sim import SimConfig, Simulator, seed
from dvp_sim.builders import disk as disk_body
from dvp_sim.builders import phase_is
from dvp_sim.builders import vm as vm_body

STORAGE_CLASS = "sim-fast"
WFFC_CLASS = "sim-wffc"
LATENCY = 0.02  # seconds per simulated phase
WAIT = 30.0
NODES = {NODE: "vm-worker-0", "worker-1": "vm-worker-1"}


@dataclass
class SimEnv:
    csi: Running
    sim: Simulator
    dvp: KubeClient  # admin client on the DVP API
    ns: str
    driver_client: KubeClient

    def names(self, res) -> list[str]:
        return sorted(o["metadata"]["name"] for o in self.dvp.list(res, self.ns).items)

    def state(self) -> dict:
        """Every object of the namespace with its resourceVersion: equal states mean nothing was written."""
        return {(res.kind, o["metadata"]["name"]): o["metadata"]["resourceVersion"]
                for res in (r.VIRTUAL_DISK, r.VMBDA, r.VIRTUAL_DISK_SNAPSHOT, r.VIRTUAL_MACHINE)
                for o in self.dvp.list(res, self.ns).items}


def add_vm(client: KubeClient, ns: str, name: str, hostname: str, cluster_uuid: str = CLUSTER,
           static_disks: int = 2) -> dict:
    """A VM as capdvp makes it: boot disk from the cluster image, additional disks, our labels."""
    owned = {labels.CLUSTER_UUID: cluster_uuid, labels.COMPONENT: "capdvp", labels.MANAGED_BY: "deckhouse",
             labels.HOSTNAME: hostname}
    names = [f"{name}-boot"] + [f"{name}-additional-disk-{i}" for i in range(static_disks - 1)]
    for i, disk_name in enumerate(names):
        body = disk_body(disk_name, "2Gi", STORAGE_CLASS, ("ClusterVirtualImage", "ubuntu") if i == 0 else None)
        body["metadata"]["labels"] = owned
        client.create(r.VIRTUAL_DISK, body, ns)
    body = vm_body(name, names)
    body["metadata"]["labels"] = owned
    client.create(r.VIRTUAL_MACHINE, body, ns)
    return client.wait_for(r.VIRTUAL_MACHINE, name, phase_is("Running"), WAIT, ns)


class Udev:
    """Loop devices for the disks DVP shows attached to `vm` (a node's VM), as hot-plug + udev would."""

    def __init__(self, client: KubeClient, ns: str, vm: str, loops: LoopDevices) -> None:
        self.client, self.ns, self.vm, self.loops = client, ns, vm, loops
        self.sizes: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="udev", daemon=True)
        self.errors: list[str] = []

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

    def sync(self) -> None:
        seen = set()
        for d in self.client.list(r.VIRTUAL_DISK, self.ns).items:
            uid = d["metadata"]["uid"]
            if self.vm in disks.disk_attached_vms(d) and d["metadata"]["name"].startswith("pvc-"):
                seen.add(uid)
                size = disks.disk_capacity(d)
                if uid not in self.loops.loops:
                    self.loops.attach(d, {})
                elif size > self.sizes.get(uid, 0):
                    self.loops.resize(d)
                self.sizes[uid] = size
        for uid in set(self.loops.loops) - seen:
            self.loops.detach({"metadata": {"uid": uid}}, {})


def sim_env(dvp_api, tmp_path: Path, loops: LoopDevices | None = None, **settings) -> Iterator[SimEnv]:
    admin = dvp_api.client()
    seed.storage_class(admin, STORAGE_CLASS)
    seed.storage_class(admin, WFFC_CLASS, binding_mode="WaitForFirstConsumer")
    seed.vm_class(admin, "generic")
    seed.cluster_image(admin, "ubuntu")
    ns = dvp_api.create_namespace("csi")
    sim = Simulator(dvp_api.client(), SimConfig(namespace=ns, default_latency=LATENCY, watch_timeout=1)).start()
    driver_client = dvp_api.client()
    udev = None
    try:
        for hostname, vm in NODES.items():
            add_vm(admin, ns, vm, hostname)
        if loops is not None:
            udev = Udev(dvp_api.client(), ns, NODES[NODE], loops).start()
        s = make_settings(tmp_path, namespace=ns, **settings)
        for running in serve(s, KubeDvp(driver_client, ns)):
            yield SimEnv(running, sim, admin, ns, driver_client)
        if udev is not None:
            assert udev.errors == []
    finally:
        if udev is not None:
            udev.stop()
        sim.stop()
        sim.client.close()
        admin.close()
        driver_client.close()

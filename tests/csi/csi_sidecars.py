# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real CSI sidecars (built from tools/) against a guest whose own control plane runs (kube-controller-manager,
kube-scheduler, kwok: `harness.guest_controllers`), the driver on the DVP simulator.

Nothing of the guest is played here: a claim is provisioned because a Pod uses it (the scheduler selects the node,
the PV controller binds), and only the kubelet's registration (Node, CSINode) is written, by `register_node`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dvp_common.kube import KubeClient, Resource, WaitTimeout, get_or_none
from dvp_common.kube.resources import PERSISTENT_VOLUME as PV
from dvp_common.kube.resources import PERSISTENT_VOLUME_CLAIM as PVC
from dvp_common.kube.resources import POD
from dvp_common.kube.resources import STORAGE_CLASS as SC
from dvp_common.runtime.informer import Informer
from dvp_csi import DRIVER_NAME
from dvp_csi.domain.topology import SEGMENT

from testkit.csi import sidecars as sidecar_processes
from testkit.csi.env import NODE
from testkit.csi.sim import STORAGE_CLASS, SimEnv, sim_env
from testkit.harness.guest_controllers import GuestControllers, register_node
from testkit.harness.processes import Process, tool

VAC = Resource("storage.k8s.io", "v1", "volumeattributesclasses", "VolumeAttributesClass", namespaced=False)
CAPACITY = Resource("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity")
GUEST_CLASS = "dvp-fast"
WAIT_S = 90.0


@dataclass
class Sidecar:
    name: str
    args: Sequence[str] = ()  # added to sidecar_processes' flags
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class World:
    guest: KubeClient
    env: SimEnv
    ns: str  # the guest namespace of the test's claims and Pods
    procs: list[Process]
    controllers: GuestControllers

    @property
    def dvp(self) -> KubeClient:
        return self.env.dvp

    @property
    def dvp_ns(self) -> str:
        return self.env.ns

    def logs(self) -> str:
        return f"{sidecar_processes.logs(self.procs)}\n{self.controllers.logs(8)}"

    def wait(self, res: Resource, name: str, predicate, ns: str | None = None, timeout: float = WAIT_S):
        """A watch-based wait on a guest object; on timeout the processes' last log lines are in the message."""
        try:
            return self.guest.wait_for(res, name, predicate, timeout, ns)
        except WaitTimeout as exc:
            raise AssertionError(f"{exc}\n{self.logs()}") from None

    def provision(self, name: str, size: str, storage_class: str = GUEST_CLASS) -> dict:
        """A claim and a Pod that uses it, as an application makes them; returns the PV the claim is bound to."""
        self.guest.create(PVC, claim(name, size, storage_class), self.ns)
        self.guest.create(POD, pod(f"use-{name}", name), self.ns)
        pvc = self.wait(PVC, name, lambda c: c is not None and (c.get("status") or {}).get("phase") == "Bound",
                        self.ns)
        return self.guest.get(PV, pvc["spec"]["volumeName"])


def sidecar_world(dvp_api, controllers: GuestControllers, tmp_path: Path, sidecars: Sequence[Sidecar | str],
                  before_start: Callable[[KubeClient], None] | None = None, **sim) -> Iterator[World]:
    """The driver on the simulator (`sim`: sim_env's keywords), worker-0 registered and Ready, and the sidecars,
    started after `before_start`; the sidecars stop before the driver they call."""
    wanted = [s if isinstance(s, Sidecar) else Sidecar(s) for s in sidecars]
    binaries = {s.name: tool(s.name) for s in wanted}  # a missing one fails: run `make tools`
    server = controllers.server
    guest = server.client()
    kubeconfig = tmp_path / "guest.kubeconfig"
    kubeconfig.write_text(server.kubeconfig())
    sock = tmp_path / "csi.sock"
    procs: list[Process] = []
    try:
        register_node(guest, NODE, csi_driver=DRIVER_NAME, topology=SEGMENT)
        ensure(guest, SC, storage_class(GUEST_CLASS, STORAGE_CLASS))
        for env in sim_env(dvp_api, tmp_path, endpoint=f"unix://{sock}", **sim):
            if before_start is not None:
                before_start(guest)
            try:
                for s in wanted:
                    argv = [str(binaries[s.name]), *sidecar_processes.flags(s.name, kubeconfig, sock), *s.args]
                    if s.env:  # the Downward API variables a sidecar reads (NAMESPACE, POD_NAME)
                        argv = ["/usr/bin/env", *(f"{k}={v}" for k, v in s.env.items()), *argv]
                    procs.append(Process(s.name, argv, tmp_path / f"{s.name}.log"))
                yield World(guest, env, server.create_namespace("app"), procs, controllers)
            finally:
                sidecar_processes.stop(procs)
    finally:
        guest.close()


def until_listed(what: str, client: KubeClient, res: Resource, ns: str | None, predicate: Callable[[list], object],
                 logs: Callable[[], str], timeout: float = WAIT_S):
    """Watch-based: the first truthy `predicate(objects)` over the listed objects, re-judged on every event."""
    changed = threading.Condition()
    informer = Informer(client, res, ns, watch_timeout=max(1, int(timeout)))

    def poke(*_: object) -> None:
        with changed:
            changed.notify_all()

    informer.add_handlers(poke, poke, poke)
    stop = threading.Event()
    thread = threading.Thread(target=informer.run, args=(stop,), name=f"until-{res.plural}", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    try:
        if informer.synced.wait(timeout):
            with changed:
                while True:
                    value = predicate(informer.items())
                    if value:
                        return value
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    changed.wait(left)
        raise AssertionError(f"timed out after {timeout:g}s waiting for {what}\n{logs()}")
    finally:
        stop.set()
        thread.join(10)


def storage_class(name: str, dvp_class: str) -> dict:
    """As the chart renders it: WaitForFirstConsumer, so a claim is provisioned once a Pod using it is scheduled."""
    return {"metadata": {"name": name}, "provisioner": DRIVER_NAME, "parameters": {"dvpStorageClass": dvp_class},
            "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True}


def ensure(g, res, body: dict) -> None:
    """A cluster-wide object the session's other tests may have made already."""
    if get_or_none(g, res, body["metadata"]["name"]) is None:
        g.create(res, body)


def claim(name: str, size: str, storage_class: str = GUEST_CLASS) -> dict:
    return {"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                                                 "resources": {"requests": {"storage": size}}}}


def pod(name: str, claim_name: str) -> dict:
    """On worker-0, the node that runs the driver (other tests' kwok Nodes share the guest)."""
    return {"metadata": {"name": name}, "spec": {
        "nodeSelector": {"kubernetes.io/hostname": NODE},
        "containers": [{"name": "app", "image": "registry.example/app:1", "volumeMounts": [
            {"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
        "terminationGracePeriodSeconds": 0}}

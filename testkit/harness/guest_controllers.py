# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The guest's own control plane beside its kube-apiserver: kube-controller-manager and kube-scheduler (built
from the same pinned Kubernetes module as the API server) and kwok's controller playing the kubelets.

Real here: PV/PVC binding and protection, attach-detach (VolumeAttachments), volume expansion's controller side,
garbage collection, namespace deletion, node lifecycle (NotReady taints, eviction), endpoint slices, service
account tokens, Deployments and ReplicaSets, scheduling (volume binding, selected node, CSI node limits).
kwok keeps the Nodes it manages Ready (heartbeats and leases) and moves their Pods to Running; it never mounts a
volume, so the Node-side CSI calls stay tested on loop devices. Registration (the Node object, its capacity, its
CSINode) is what a kubelet does at start and is done by `register_node`.

Run only on an API server of its own (`ControlPlane.add_server`): these controllers act on every object they see.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import VIRTUAL_MACHINE
from dvp_common.kube import AlreadyExists, NotFound, Resource, WaitTimeout
from dvp_common.runtime.informer import Informer

from . import controller_manager
from .apiserver import ApiServer
from .pki import Pki
from .processes import TOP, HarnessError, Process, tool

NODE = Resource("", "v1", "nodes", "Node", namespaced=False)
CSI_NODE = Resource("storage.k8s.io", "v1", "csinodes", "CSINode", namespaced=False)
KWOK_LABEL = "kwok.x-k8s.io/node"  # kwok manages the Nodes that carry it
KWOK_VALUE = "fake"
UNINITIALIZED = "node.cloudprovider.kubernetes.io/uninitialized"
NODE_MONITOR_GRACE_S = 8  # NotReady this long after the last heartbeat (kube's default is 50 s)

CONTROLLERS = (
    "garbage-collector-controller", "namespace-controller", "serviceaccount-controller",
    "serviceaccount-token-controller", "node-lifecycle-controller", "taint-eviction-controller",
    "persistentvolume-binder-controller", "persistentvolume-attach-detach-controller",
    "persistentvolume-expander-controller", "persistentvolume-protection-controller",
    "persistentvolumeclaim-protection-controller", "volumeattributesclass-protection-controller",
    "endpointslice-controller", "deployment-controller", "replicaset-controller", "pod-garbage-collector-controller",
)
SCHEDULER_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: {kubeconfig}
  qps: 100
  burst: 200
leaderElection:
  leaderElect: false
"""
READY_S = 60.0
KWOK_STAGES = TOP / ".cache" / "upstream" / "kwok" / "stages"  # kwok's own, from its pinned module


def kwok_stages() -> list[Path]:
    stages = sorted(KWOK_STAGES.glob("*.yaml"))
    if not stages:
        raise HarnessError(f"no kwok stages under {KWOK_STAGES}: run `make upstream`")
    return stages


class GuestControllers:
    """kube-controller-manager, kube-scheduler and kwok against one API server; `stop()` ends them."""

    def __init__(self, server: ApiServer, pki: Pki, workdir: Path, *, kwok: bool = True) -> None:
        """`pki`: the control plane's, whose service-account key the API server verifies tokens with."""
        stages = kwok_stages() if kwok else []
        binaries = {name: tool(name) for name in ("kube-controller-manager", "kube-scheduler", "kwok")
                    if kwok or name != "kwok"}  # a missing one fails before anything starts
        workdir.mkdir(parents=True, exist_ok=True)
        self.server = server
        kubeconfig = workdir / "controllers.kubeconfig"
        kubeconfig.write_text(server.kubeconfig())
        kubeconfig.chmod(0o600)
        scheduler_config = workdir / "scheduler.yaml"
        scheduler_config.write_text(SCHEDULER_CONFIG.format(kubeconfig=kubeconfig))
        self.processes: list[Process] = []
        try:
            self.processes.append(controller_manager.start(
                "kube-controller-manager", kubeconfig, CONTROLLERS, workdir / "kube-controller-manager.log",
                f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
                "--use-service-account-credentials=false", "--cloud-provider=external",
                f"--service-account-private-key-file={pki.sa_key}", f"--root-ca-file={pki.ca_cert}",
                "--node-monitor-period=1s", f"--node-monitor-grace-period={NODE_MONITOR_GRACE_S}s",
                binary=binaries["kube-controller-manager"]))
            self.processes.append(Process("kube-scheduler", [
                str(binaries["kube-scheduler"]), f"--config={scheduler_config}", "--secure-port=0", "--v=1"],
                workdir / "kube-scheduler.log"))
            if kwok:
                self.processes.append(Process("kwok", [
                    str(binaries["kwok"]), f"--kubeconfig={kubeconfig}", *(f"--config={s}" for s in stages),
                    f"--manage-nodes-with-label-selector={KWOK_LABEL}={KWOK_VALUE}", "--node-lease-duration-seconds=40",
                    "--server-address=", "--v=INFO"], workdir / "kwok.log"))
        except BaseException:
            self.stop()
            raise

    def logs(self, lines: int = 10) -> str:
        return "\n".join(f"--- {p.name}\n{p.tail(lines)}" for p in self.processes)

    def check_alive(self) -> None:
        dead = [p for p in self.processes if not p.alive()]
        if dead:
            raise HarnessError(f"{', '.join(p.name for p in dead)} exited:\n{self.logs(20)}")

    def stop(self) -> None:
        for p in self.processes:
            p.terminate()
        for p in self.processes:
            p.stop()

    def __enter__(self) -> GuestControllers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def register_node(client, name: str, *, csi_driver: str | None = None, attach_limit: int = 14,
                  topology: dict[str, str] | None = None, uninitialized: bool = False,
                  labels: dict[str, str] | None = None, wait: bool = True) -> dict | None:
    """What a kubelet does when it starts: the Node with its capacity and the annotation that hands attaching to
    the attach-detach controller (and, with an external cloud provider, the uninitialized taint); the CSINode the
    node plugin's registration writes, with the driver's `topology` segment (NodeGetInfo's: kubelet labels the
    Node with it and lists its keys). kwok then keeps the Node Ready (`wait`: until it is). Idempotent."""
    body = {"metadata": {"name": name, "labels": {KWOK_LABEL: KWOK_VALUE, "kubernetes.io/hostname": name,
                                                  "kubernetes.io/os": "linux", **(topology or {}), **(labels or {})},
                         "annotations": {"volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
            "spec": {"taints": [{"key": UNINITIALIZED, "value": "true", "effect": "NoSchedule"}]
                     if uninitialized else []}}
    try:
        node = client.create(NODE, body)
    except AlreadyExists:
        node = client.get(NODE, name)
    capacity = {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "20Gi"}
    sized = {"status": {"capacity": capacity, "allocatable": capacity}}
    client.patch(NODE, name, sized, subresource="status")
    if csi_driver:
        with contextlib.suppress(AlreadyExists):
            # owned by its Node, as the kubelet makes it: the garbage collector removes it with the Node
            owner = {"apiVersion": "v1", "kind": "Node", "name": name, "uid": node["metadata"]["uid"]}
            client.create(CSI_NODE, {"metadata": {"name": name, "ownerReferences": [owner]}, "spec": {"drivers": [
                {"name": csi_driver, "nodeID": name, "allocatable": {"count": attach_limit},
                 "topologyKeys": sorted(topology or {})}]}})
    if not wait:
        return None
    node = wait_node_ready(client, name)
    if node["status"].get("allocatable") != capacity:
        # kwok initialised the Node from a view older than our patch (its defaults: cpu 1k); it initialises only
        # a Node that is not Ready, so now ours stays
        node = client.patch(NODE, name, sized, subresource="status")
    return node


def wait_node_ready(client, name: str, timeout: float = READY_S) -> dict:
    def ready(node: dict | None) -> bool:
        return node is not None and any(c.get("type") == "Ready" and c.get("status") == "True"
                   for c in (node.get("status") or {}).get("conditions") or [])
    try:
        return client.wait_for(NODE, name, ready, timeout)
    except WaitTimeout as exc:
        raise HarnessError(f"Node {name} did not become Ready within {timeout:g}s (kwok): {exc}") from None


class KubeletsInVMs:
    """The kubelets live in DVP's VMs: a Node's kwok kubelet runs while the VM of its hostname
    (`dvp.deckhouse.io/hostname`) is Running and stops with it (the Node leaves kwok's selector, so its heartbeats
    stop and the node lifecycle controller sees what it sees when a VM stops). Follows the VMs of one DVP namespace
    by watch; `stop()` ends it. `register`: a Running VM's kubelet registers its Node (named for the hostname, with
    the uninitialized taint of an external cloud provider) when there is none, as a booted machine's does, with the
    CSINode of `csi_driver` (and its `topology` segment) when the node plugin runs there. `cluster_uuid`: only the
    VMs of that cluster (`dvp.deckhouse.io/cluster-uuid`); another cluster's VMs in the project boot into its own
    guest."""

    def __init__(self, dvp, namespace: str, guest, *, register: bool = False, csi_driver: str | None = None,
                 topology: dict[str, str] | None = None, cluster_uuid: str | None = None) -> None:
        self.guest, self.register, self.csi_driver, self.topology = guest, register, csi_driver, topology
        self.cluster_uuid = cluster_uuid
        self.registered: set[str] = set()  # Nodes this registered (cluster-wide: the caller deletes what is left)
        self.informer = Informer(dvp, VIRTUAL_MACHINE, namespace, watch_timeout=5)
        self.informer.add_handlers(on_add=self._follow, on_update=lambda _old, new: self._follow(new),
                                   on_delete=lambda vm: self._set(vm, False))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.informer.run, args=(self._stop,), daemon=True,
                                        name="kubelets-in-vms")

    def start(self) -> KubeletsInVMs:
        self._thread.start()
        if not self.informer.synced.wait(READY_S):
            raise HarnessError(f"the VM informer did not sync within {READY_S:g}s: {self.informer.last_error}")
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(READY_S)

    def _follow(self, vm: dict) -> None:
        self._set(vm, ((vm.get("status") or {}).get("phase")) == "Running")

    def _set(self, vm: dict, running: bool) -> None:
        labels = (vm.get("metadata") or {}).get("labels") or {}
        node = labels.get(L.HOSTNAME)
        if not node or (self.cluster_uuid is not None and labels.get(L.CLUSTER_UUID) != self.cluster_uuid):
            return
        try:
            self.guest.patch(NODE, node, {"metadata": {"labels": {KWOK_LABEL: KWOK_VALUE if running else None}}})
        except NotFound:
            if running and self.register:
                self.registered.add(node)
                register_node(self.guest, node, uninitialized=True, wait=False, csi_driver=self.csi_driver,
                              topology=self.topology)

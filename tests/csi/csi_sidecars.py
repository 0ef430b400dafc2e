# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real CSI sidecars (built from tools/) against the guest kube-apiserver, the driver on the DVP simulator.

The guest has no kube-controller-manager, scheduler or kubelet: tests do their few steps by hand (`bind`: the PV
controller; `pvc_body`: the scheduler's selected node; a VolumeAttachment: the AD controller).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from csi_env import NODE
from csi_sim import STORAGE_CLASS, SimEnv, sim_env
from dvp_common.kube import KubeClient, NotFound, Resource
from dvp_common.runtime.informer import Informer
from dvp_csi import DRIVER_NAME
from dvp_csi.domain.topology import SEGMENT, TOPOLOGY_KEY
from harness.processes import Process, tool
from sidecar_processes import ARGS

PV = Resource("", "v1", "persistentvolumes", "PersistentVolume", namespaced=False)
PVC = Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim")
NODE_RES = Resource("", "v1", "nodes", "Node", namespaced=False)
SC = Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", namespaced=False)
CSI_NODE = Resource("storage.k8s.io", "v1", "csinodes", "CSINode", namespaced=False)
VA = Resource("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", namespaced=False)
VAC = Resource("storage.k8s.io", "v1", "volumeattributesclasses", "VolumeAttributesClass", namespaced=False)
CAPACITY = Resource("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity")
VS = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot")
VSC = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses", "VolumeSnapshotClass", namespaced=False)
GUEST_CLASS = "dvp-fast"
WAIT_S = 60.0


@dataclass
class Sidecar:
    name: str
    args: Sequence[str] = ()  # instead of ARGS[name]
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class World:
    guest: KubeClient
    env: SimEnv
    ns: str  # the guest namespace of the test's PVCs
    procs: list[Process]

    @property
    def dvp(self) -> KubeClient:
        return self.env.dvp

    @property
    def dvp_ns(self) -> str:
        return self.env.ns

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.tail(8)}" for p in self.procs)

    def wait(self, res: Resource, name: str, predicate, ns: str | None = None, timeout: float = WAIT_S):
        """A watch-based wait on a guest object; on timeout the sidecars' last log lines are in the message."""
        try:
            return self.guest.wait_for(res, name, predicate, timeout, ns)
        except Exception as exc:
            raise AssertionError(f"{exc}\n{self.logs()}") from exc


def sidecar_world(dvp_api, guest_api, tmp_path: Path, sidecars: Sequence[Sidecar | str],
                  before_start: Callable[[KubeClient], None] | None = None, **sim) -> Iterator[World]:
    """The driver on the simulator (`sim`: sim_env's keywords) and the sidecars, started after `before_start`."""
    wanted = [s if isinstance(s, Sidecar) else Sidecar(s) for s in sidecars]
    binaries = {s.name: tool(s.name) for s in wanted}  # a missing one fails: run `make tools`
    guest = guest_api.client()
    kubeconfig = tmp_path / "guest.kubeconfig"
    kubeconfig.write_text(guest_api.kubeconfig())
    sock = tmp_path / "csi.sock"
    procs: list[Process] = []
    try:
        for env in sim_env(dvp_api, tmp_path, endpoint=f"unix://{sock}", **sim):
            guest_setup(guest)
            if before_start is not None:
                before_start(guest)
            for s in wanted:
                argv = [str(binaries[s.name]), f"--kubeconfig={kubeconfig}", "--v=2"]
                if s.name != "snapshot-controller":
                    argv += [f"--csi-address={sock}", "--timeout=60s", *(s.args or ARGS[s.name])]
                if s.env:  # the Downward API variables a sidecar reads (NAMESPACE, POD_NAME)
                    argv = ["/usr/bin/env", *(f"{k}={v}" for k, v in s.env.items()), *argv]
                procs.append(Process(s.name, argv, tmp_path / f"{s.name}.log"))
            yield World(guest, env, guest_api.create_namespace("app"), procs)
    finally:
        for p in procs:
            p.stop()
        guest.close()


def until_listed(what: str, client: KubeClient, res: Resource, ns: str | None, predicate: Callable[[list], object],
                 procs: list[Process], timeout: float = WAIT_S):
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
        logs = "\n".join(f"--- {p.name}\n{p.tail(8)}" for p in procs)
        raise AssertionError(f"timed out after {timeout:g}s waiting for {what}\n{logs}")
    finally:
        stop.set()
        thread.join(10)


def get(client, res, name, ns=None):
    try:
        return client.get(res, name, ns)
    except NotFound:
        return None


def guest_setup(g) -> None:
    """Cluster-wide guest objects (the API is shared by the session): StorageClass, snapshot class, Node, CSINode."""
    if get(g, SC, GUEST_CLASS) is None:
        g.create(SC, storage_class(GUEST_CLASS, STORAGE_CLASS))
        g.create(VSC, {"metadata": {"name": "dvp-snapshots"}, "driver": DRIVER_NAME, "deletionPolicy": "Delete"})
        # as kubelet registers the node plugin: NodeGetInfo's topology as a Node label and CSINode's keys
        g.create(NODE_RES, {"metadata": {"name": NODE, "labels": SEGMENT}})
        g.create(CSI_NODE, {"metadata": {"name": NODE}, "spec": {"drivers": [
            {"name": DRIVER_NAME, "nodeID": NODE, "allocatable": {"count": 14}, "topologyKeys": [TOPOLOGY_KEY]}]}})


def storage_class(name: str, dvp_class: str) -> dict:
    return {"metadata": {"name": name}, "provisioner": DRIVER_NAME, "parameters": {"dvpStorageClass": dvp_class},
            "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True}


def ensure(g, res, body: dict) -> None:
    """A cluster-wide object the session's other tests may have made already."""
    if get(g, res, body["metadata"]["name"]) is None:
        g.create(res, body)


def bind(guest, ns: str, pvc_name: str, procs) -> dict:
    """Wait for the provisioner's PV, then bind it as the PV controller would."""
    pvc = guest.get(PVC, pvc_name, ns)
    uid = pvc["metadata"]["uid"]
    pv = until_listed(f"a PV for PVC {pvc_name}", guest, PV, None, lambda pvs: next(
        (p for p in pvs if (p["spec"].get("claimRef") or {}).get("uid") == uid), None), procs)
    name = pv["metadata"]["name"]
    guest.patch(PV, name, {"status": {"phase": "Bound"}}, subresource="status")
    guest.patch(PVC, pvc_name, {"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                                "spec": {"volumeName": name}}, ns)
    guest.patch(PVC, pvc_name, {"status": {"phase": "Bound", "accessModes": pv["spec"]["accessModes"],
                                           "capacity": pv["spec"]["capacity"]}}, ns, subresource="status")
    return guest.get(PV, name)


def pvc_body(name: str, size: str, data_source: dict | None = None, storage_class: str = GUEST_CLASS) -> dict:
    body = {"metadata": {"name": name, "annotations": {
        # what the PV controller and the scheduler would have written for a WaitForFirstConsumer class
        "volume.kubernetes.io/storage-provisioner": DRIVER_NAME, "volume.kubernetes.io/selected-node": NODE}},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                 "resources": {"requests": {"storage": size}}}}
    if data_source:
        body["spec"]["dataSource"] = data_source
    return body

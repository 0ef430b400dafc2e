# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real sidecars (external-provisioner v6, external-attacher v4, external-resizer v2, external-snapshotter v8
and the snapshot-controller, built from tools/) drive the driver from a real guest kube-apiserver; the driver
talks to the DVP kube-apiserver. PVC -> PV Bound -> VolumeAttachment attached -> resize -> VolumeSnapshot
readyToUse -> a PVC restored from it.

The guest has no kube-controller-manager, scheduler or kubelet: the test does their few steps itself and says so
(the PV controller's provisioner annotation and binding, the scheduler's selected node, the AD controller's
VolumeAttachment). DVP's controllers are played by the DVP simulator (testkit/dvp_sim).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from csi_env import NODE
from csi_sim import STORAGE_CLASS, sim_env
from dvp_common.dvp import resources as r
from dvp_common.kube import NotFound, Resource
from dvp_csi import DRIVER_NAME
from harness.processes import Process, tool

PV = Resource("", "v1", "persistentvolumes", "PersistentVolume", namespaced=False)
PVC = Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim")
NODE_RES = Resource("", "v1", "nodes", "Node", namespaced=False)
SC = Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", namespaced=False)
CSI_NODE = Resource("storage.k8s.io", "v1", "csinodes", "CSINode", namespaced=False)
VA = Resource("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", namespaced=False)
VS = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot")
VSC = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses", "VolumeSnapshotClass", namespaced=False)
ARGS = {
    "csi-provisioner": ["--feature-gates=Topology=false", "--extra-create-metadata", "--default-fstype=ext4"],
    "csi-attacher": [],
    "csi-resizer": ["--handle-volume-inuse-error=false"],
    "csi-snapshotter": ["--extra-create-metadata"],
}
WAIT_S = 60.0


def until(what: str, fn: Callable[[], object], procs: list[Process], timeout: float = WAIT_S):
    deadline, delay = time.monotonic() + timeout, 0.05
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            logs = "\n".join(f"--- {p.name}\n{p.tail(8)}" for p in procs)
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}\n{logs}")
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def get(client, res, name, ns=None):
    try:
        return client.get(res, name, ns)
    except NotFound:
        return None


@pytest.fixture
def world(request, dvp_api, guest_api, tmp_path) -> Iterator[dict]:
    """The driver on the simulator, and the sidecars the test names (indirect parameter)."""
    wanted = request.param
    binaries = {name: tool(name) for name in wanted}  # a missing one fails: run `make tools`
    guest = guest_api.client()
    kubeconfig = tmp_path / "guest.kubeconfig"
    kubeconfig.write_text(guest_api.kubeconfig())
    sock = tmp_path / "csi.sock"
    procs: list[Process] = []
    try:
        for env in sim_env(dvp_api, tmp_path, endpoint=f"unix://{sock}"):
            for name in wanted:
                argv = [str(binaries[name]), f"--kubeconfig={kubeconfig}", "--v=2"]
                if name != "snapshot-controller":
                    argv += [f"--csi-address={sock}", "--timeout=60s", *ARGS[name]]
                procs.append(Process(name, argv, tmp_path / f"{name}.log"))
            guest_setup(guest)
            yield {"guest": guest, "dvp": env.dvp, "dvp_ns": env.ns, "ns": guest_api.create_namespace("app"),
                   "procs": procs}
    finally:
        for p in procs:
            p.stop()
        guest.close()


def guest_setup(g) -> None:
    """Cluster-wide guest objects (the API is shared by the session): StorageClass, snapshot class, Node, CSINode."""
    if get(g, SC, "dvp-fast") is None:
        g.create(SC, {"metadata": {"name": "dvp-fast"}, "provisioner": DRIVER_NAME,
                      "parameters": {"dvpStorageClass": STORAGE_CLASS}, "reclaimPolicy": "Delete",
                      "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True})
        g.create(VSC, {"metadata": {"name": "dvp-snapshots"}, "driver": DRIVER_NAME, "deletionPolicy": "Delete"})
        g.create(NODE_RES, {"metadata": {"name": NODE}})
        g.create(CSI_NODE, {"metadata": {"name": NODE}, "spec": {"drivers": [
            {"name": DRIVER_NAME, "nodeID": NODE, "allocatable": {"count": 14}}]}})


def bind(guest, ns: str, pvc_name: str, procs) -> dict:
    """Wait for the provisioner's PV, then bind it as the PV controller would."""
    pvc = guest.get(PVC, pvc_name, ns)
    uid = pvc["metadata"]["uid"]
    pv = until(f"a PV for PVC {pvc_name}", lambda: next(
        (p for p in guest.list(PV).items if (p["spec"].get("claimRef") or {}).get("uid") == uid), None), procs)
    name = pv["metadata"]["name"]
    guest.patch(PV, name, {"status": {"phase": "Bound"}}, subresource="status")
    guest.patch(PVC, pvc_name, {"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                                "spec": {"volumeName": name}}, ns)
    guest.patch(PVC, pvc_name, {"status": {"phase": "Bound", "accessModes": pv["spec"]["accessModes"],
                                           "capacity": pv["spec"]["capacity"]}}, ns, subresource="status")
    return guest.get(PV, name)


def pvc_body(name: str, size: str, data_source: dict | None = None) -> dict:
    body = {"metadata": {"name": name, "annotations": {
        # what the PV controller and the scheduler would have written for a WaitForFirstConsumer class
        "volume.kubernetes.io/storage-provisioner": DRIVER_NAME, "volume.kubernetes.io/selected-node": NODE}},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "dvp-fast",
                 "resources": {"requests": {"storage": size}}}}
    if data_source:
        body["spec"]["dataSource"] = data_source
    return body


@pytest.mark.tools
@pytest.mark.parametrize("world", [("csi-provisioner", "csi-attacher")], indirect=True)
def test_provision_attach_detach_with_the_real_sidecars(world):
    g, ns, procs = world["guest"], world["ns"], world["procs"]
    dvp, dvp_ns = world["dvp"], world["dvp_ns"]

    # PVC -> PV Bound; the VirtualDisk is in DVP
    g.create(PVC, pvc_body("data", "1Gi"), ns)
    pv = bind(g, ns, "data", procs)
    handle = pv["spec"]["csi"]["volumeHandle"]
    assert pv["spec"]["csi"]["driver"] == DRIVER_NAME and pv["spec"]["capacity"]["storage"] == "1Gi"
    assert dvp.get(r.VIRTUAL_DISK, handle, dvp_ns)["spec"]["persistentVolumeClaim"] == {
        "storageClassName": STORAGE_CLASS, "size": "1Gi"}

    # VolumeAttachment (the AD controller's object) -> attached; a VMBDA in DVP
    va_name = f"csi-{handle}-{NODE}"
    g.create(VA, {"metadata": {"name": va_name}, "spec": {"attacher": DRIVER_NAME, "nodeName": NODE,
                                                         "source": {"persistentVolumeName": pv["metadata"]["name"]}}})
    until("VolumeAttachment attached", lambda: (get(g, VA, va_name) or {}).get("status", {}).get("attached"), procs)
    assert len(g.get(VA, va_name)["status"]["attachmentMetadata"]["serial"]) == 32
    assert [a["metadata"]["name"] for a in dvp.list(r.VMBDA, dvp_ns).items] == [f"vmbda-{handle}-vm-worker-0"]

    # detach: deleting the VolumeAttachment makes the attacher unpublish; the VMBDA goes
    g.delete(VA, va_name)
    until("VolumeAttachment gone", lambda: get(g, VA, va_name) is None, procs)
    until("VMBDA gone", lambda: dvp.list(r.VMBDA, dvp_ns).items == [], procs)

    # the claim goes; the PV is Released (the PV controller's step) and the provisioner deletes the VirtualDisk
    g.delete(PVC, "data", ns)
    g.patch(PV, pv["metadata"]["name"], {"status": {"phase": "Released"}}, subresource="status")
    until("VirtualDisk deleted", lambda: get(dvp, r.VIRTUAL_DISK, handle, dvp_ns) is None, procs)


@pytest.mark.tools
@pytest.mark.parametrize("world", [("csi-provisioner", "csi-resizer", "csi-snapshotter", "snapshot-controller")],
                         indirect=True)
def test_resize_snapshot_restore_with_the_real_sidecars(world):
    g, ns, procs = world["guest"], world["ns"], world["procs"]
    dvp, dvp_ns = world["dvp"], world["dvp_ns"]
    g.create(PVC, pvc_body("data", "1Gi"), ns)
    pv = bind(g, ns, "data", procs)
    handle = pv["spec"]["csi"]["volumeHandle"]

    # resize: the resizer grows the DVP disk and the PV
    g.patch(PVC, "data", {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, ns)
    until("PV capacity 2Gi", lambda: g.get(PV, pv["metadata"]["name"])["spec"]["capacity"]["storage"] == "2Gi",
          procs)
    assert dvp.get(r.VIRTUAL_DISK, handle, dvp_ns)["status"]["capacity"] == "2Gi"

    # VolumeSnapshot -> readyToUse; a VirtualDiskSnapshot in DVP
    g.create(VS, {"metadata": {"name": "snap"}, "spec": {"volumeSnapshotClassName": "dvp-snapshots",
                                                        "source": {"persistentVolumeClaimName": "data"}}}, ns)
    until("VolumeSnapshot readyToUse", lambda: (g.get(VS, "snap", ns).get("status") or {}).get("readyToUse"), procs)
    [vds] = dvp.list(r.VIRTUAL_DISK_SNAPSHOT, dvp_ns).items
    assert vds["spec"]["virtualDiskName"] == handle

    # a PVC restored from the snapshot
    g.create(PVC, pvc_body("restored", "2Gi", {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot",
                                               "name": "snap"}), ns)
    restored = bind(g, ns, "restored", procs)
    disk = dvp.get(r.VIRTUAL_DISK, restored["spec"]["csi"]["volumeHandle"], dvp_ns)
    assert disk["spec"]["dataSource"] == {"type": "ObjectRef", "objectRef": {
        "kind": "VirtualDiskSnapshot", "name": vds["metadata"]["name"]}}

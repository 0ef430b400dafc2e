# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A Pod with a claim, through the guest's own control plane: nothing of the guest is played by hand.

The real kube-scheduler picks the node and writes the selected node, the real PV controller binds the claim the
real external-provisioner's volume satisfies, the attach-detach controller writes the VolumeAttachment the
external-attacher publishes, kwok's kubelet runs the Pod and removes it when deleted; the PV controller releases
the volume and the provisioner deletes it. The driver talks to the DVP API, whose controllers the simulator plays.
Only the kubelet's registration (Node, CSINode) is written here, as `harness.guest_controllers.register_node`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube import Resource, WaitTimeout, get_or_none
from dvp_csi import DRIVER_NAME
from dvp_csi.domain.topology import SEGMENT

from testkit.csi import sidecars as sidecar_processes
from testkit.csi.env import NODE
from testkit.csi.sim import STORAGE_CLASS, sim_env
from testkit.harness.guest_controllers import register_node

POD = Resource("", "v1", "pods", "Pod")
PV = Resource("", "v1", "persistentvolumes", "PersistentVolume", namespaced=False)
PVC = Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim")
SC = Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", namespaced=False)
VA = Resource("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", namespaced=False)
VS = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot")
VSC = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses", "VolumeSnapshotClass", namespaced=False)
CLASS, SNAPSHOT_CLASS = "dvp-walk", "dvp-walk-snapshots"
WAIT_S = 90.0


@pytest.fixture
def world(request, guest_controllers, dvp_api, tmp_path) -> Iterator[dict]:
    """The driver on the simulator; the sidecars the test names (indirect parameter) on the guest whose control
    plane runs; worker-0 registered and Ready."""
    server = guest_controllers.server
    guest = server.client()
    kubeconfig = tmp_path / "guest.kubeconfig"
    kubeconfig.write_text(server.kubeconfig())
    sock = tmp_path / "csi.sock"
    try:
        register_node(guest, NODE, csi_driver=DRIVER_NAME, topology=SEGMENT)
        if get_or_none(guest, SC, CLASS) is None:
            guest.create(SC, {"metadata": {"name": CLASS}, "provisioner": DRIVER_NAME,
                              "parameters": {"dvpStorageClass": STORAGE_CLASS}, "reclaimPolicy": "Delete",
                              "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True})
            guest.create(VSC, {"metadata": {"name": SNAPSHOT_CLASS}, "driver": DRIVER_NAME,
                               "deletionPolicy": "Delete"})
        for env in sim_env(dvp_api, tmp_path, endpoint=f"unix://{sock}"):
            procs = sidecar_processes.start(request.param, kubeconfig, sock, tmp_path)
            try:
                yield {"guest": guest, "dvp": env.dvp, "dvp_ns": env.ns, "ns": server.create_namespace("walk"),
                       "wait": Waiter(guest, procs, guest_controllers)}
            finally:  # the sidecars go before the driver they call
                sidecar_processes.stop(procs)
    finally:
        guest.close()


class Waiter:
    """Watch-based waits whose timeout message carries the processes' last lines."""

    def __init__(self, client, procs, controllers) -> None:
        self.client, self.procs, self.controllers = client, procs, controllers

    def __call__(self, res: Resource, name: str, predicate, namespace: str | None = None, client=None) -> dict:
        try:
            return (client or self.client).wait_for(res, name, predicate, WAIT_S, namespace)
        except WaitTimeout as exc:
            raise AssertionError(f"{exc}\n{sidecar_processes.logs(self.procs)}\n{self.controllers.logs(8)}") from None


def claim(name: str, size: str, data_source: dict | None = None) -> dict:
    body = {"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": CLASS,
                                                 "resources": {"requests": {"storage": size}}}}
    if data_source:
        body["spec"]["dataSource"] = data_source
    return body


def pod(name: str, claim_name: str) -> dict:
    return {"metadata": {"name": name}, "spec": {
        "containers": [{"name": "app", "image": "registry.example/app:1", "volumeMounts": [
            {"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
        "terminationGracePeriodSeconds": 0}}


def attachment_name(pv: str, node: str) -> str:
    """The attach-detach controller's name for a CSI VolumeAttachment (sha256 of PV, driver and node)."""
    return "csi-" + hashlib.sha256(f"{pv}{DRIVER_NAME}{node}".encode()).hexdigest()


def running(p: dict | None) -> bool:
    return p is not None and (p.get("status") or {}).get("phase") == "Running"


def bound(c: dict | None) -> bool:
    return c is not None and (c.get("status") or {}).get("phase") == "Bound"


def gone(obj: dict | None) -> bool:
    return obj is None


@pytest.mark.tools
@pytest.mark.parametrize("world", [("csi-provisioner", "csi-attacher")], indirect=True)
def test_a_pod_with_a_claim_runs_and_goes_through_the_guests_own_controllers(world):
    g, ns, wait, dvp, dvp_ns = world["guest"], world["ns"], world["wait"], world["dvp"], world["dvp_ns"]
    g.create(PVC, claim("data", "1Gi"), ns)
    g.create(POD, pod("app", "data"), ns)

    # the scheduler chose the node, the PV controller bound the provisioner's volume, kwok runs the Pod
    app = wait(POD, "app", running, ns)
    assert app["spec"]["nodeName"] == NODE
    pvc = wait(PVC, "data", bound, ns)
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == NODE
    pv = g.get(PV, pvc["spec"]["volumeName"])
    handle = pv["spec"]["csi"]["volumeHandle"]
    assert (pv["spec"]["csi"]["driver"], pv["spec"]["claimRef"]["uid"]) == (DRIVER_NAME, pvc["metadata"]["uid"])
    assert dvp.get(r.VIRTUAL_DISK, handle, dvp_ns)["spec"]["persistentVolumeClaim"] == {
        "storageClassName": STORAGE_CLASS, "size": "1Gi"}

    # the attach-detach controller's VolumeAttachment, published by the attacher: a VMBDA in DVP
    va_name = attachment_name(pv["metadata"]["name"], NODE)
    va = wait(VA, va_name, lambda v: v is not None and (v.get("status") or {}).get("attached"))
    assert (va["spec"]["attacher"], va["spec"]["nodeName"]) == (DRIVER_NAME, NODE)
    assert [a["metadata"]["name"] for a in dvp.list(r.VMBDA, dvp_ns).items] == [f"vmbda-{handle}-vm-worker-0"]

    # the Pod goes: the attach-detach controller detaches, the attacher unpublishes, the VMBDA goes
    g.delete(POD, "app", ns)
    wait(POD, "app", gone, ns)
    wait(VA, va_name, gone)
    wait(r.VMBDA, f"vmbda-{handle}-vm-worker-0", gone, dvp_ns, client=dvp)

    # the claim goes: the PV controller releases the volume, the provisioner deletes it and the VirtualDisk
    g.delete(PVC, "data", ns)
    wait(PV, pv["metadata"]["name"], gone)
    wait(r.VIRTUAL_DISK, handle, gone, dvp_ns, client=dvp)


@pytest.mark.tools
@pytest.mark.parametrize("world", [("csi-provisioner", "csi-attacher", "csi-resizer", "csi-snapshotter",
                                    "snapshot-controller")], indirect=True)
def test_resize_snapshot_and_restore_for_a_running_pod(world):
    g, ns, wait, dvp, dvp_ns = world["guest"], world["ns"], world["wait"], world["dvp"], world["dvp_ns"]
    g.create(PVC, claim("data", "1Gi"), ns)
    g.create(POD, pod("app", "data"), ns)
    wait(POD, "app", running, ns)
    pvc = wait(PVC, "data", bound, ns)
    pv_name = pvc["spec"]["volumeName"]
    handle = g.get(PV, pv_name)["spec"]["csi"]["volumeHandle"]

    # a bigger claim: the expander hands it to the resizer, which grows the VirtualDisk and the PV
    g.patch(PVC, "data", {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, ns)
    wait(PV, pv_name, lambda p: p is not None and p["spec"]["capacity"]["storage"] == "2Gi")
    assert dvp.get(r.VIRTUAL_DISK, handle, dvp_ns)["status"]["capacity"] == "2Gi"

    # a VolumeSnapshot of the claim in use: a VirtualDiskSnapshot in DVP
    g.create(VS, {"metadata": {"name": "snap"}, "spec": {"volumeSnapshotClassName": SNAPSHOT_CLASS,
                                                        "source": {"persistentVolumeClaimName": "data"}}}, ns)
    wait(VS, "snap", lambda s: s is not None and (s.get("status") or {}).get("readyToUse"), ns)
    [vds] = dvp.list(r.VIRTUAL_DISK_SNAPSHOT, dvp_ns).items
    assert vds["spec"]["virtualDiskName"] == handle

    # a claim restored from it, consumed by a second Pod: bound to a disk made from the snapshot
    g.create(PVC, claim("restored", "2Gi", {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot",
                                            "name": "snap"}), ns)
    g.create(POD, pod("restorer", "restored"), ns)
    wait(POD, "restorer", running, ns)
    restored = wait(PVC, "restored", bound, ns)
    disk = dvp.get(r.VIRTUAL_DISK, g.get(PV, restored["spec"]["volumeName"])["spec"]["csi"]["volumeHandle"], dvp_ns)
    assert disk["spec"]["dataSource"] == {"type": "ObjectRef", "objectRef": {
        "kind": "VirtualDiskSnapshot", "name": vds["metadata"]["name"]}}

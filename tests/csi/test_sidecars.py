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

from collections.abc import Iterator

import pytest
from csi_env import NODE
from csi_sidecars import PV, PVC, VA, VS, World, bind, pvc_body, sidecar_world, until_listed
from csi_sim import STORAGE_CLASS
from dvp_common.dvp import resources as r
from dvp_csi import DRIVER_NAME


@pytest.fixture
def world(request, dvp_api, guest_api, tmp_path) -> Iterator[dict]:
    """The driver on the simulator, and the sidecars the test names (indirect parameter)."""
    for w in sidecar_world(dvp_api, guest_api, tmp_path, request.param):
        yield as_dict(w)


def as_dict(w: World) -> dict:
    return {"guest": w.guest, "dvp": w.dvp, "dvp_ns": w.dvp_ns, "ns": w.ns, "procs": w.procs, "world": w}


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
    w = world["world"]
    w.wait(VA, va_name, lambda va: (va or {}).get("status", {}).get("attached"))
    assert len(g.get(VA, va_name)["status"]["attachmentMetadata"]["serial"]) == 32
    assert [a["metadata"]["name"] for a in dvp.list(r.VMBDA, dvp_ns).items] == [f"vmbda-{handle}-vm-worker-0"]

    # detach: deleting the VolumeAttachment makes the attacher unpublish; the VMBDA goes
    g.delete(VA, va_name)
    w.wait(VA, va_name, lambda va: va is None)
    until_listed("VMBDA gone", dvp, r.VMBDA, dvp_ns, lambda vmbdas: not vmbdas, procs)

    # the claim goes; the PV is Released (the PV controller's step) and the provisioner deletes the VirtualDisk
    g.delete(PVC, "data", ns)
    g.patch(PV, pv["metadata"]["name"], {"status": {"phase": "Released"}}, subresource="status")
    w.env.wait(r.VIRTUAL_DISK, handle, lambda d: d is None)


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
    w = world["world"]
    w.wait(PV, pv["metadata"]["name"], lambda p: p["spec"]["capacity"]["storage"] == "2Gi")
    assert dvp.get(r.VIRTUAL_DISK, handle, dvp_ns)["status"]["capacity"] == "2Gi"

    # VolumeSnapshot -> readyToUse; a VirtualDiskSnapshot in DVP
    g.create(VS, {"metadata": {"name": "snap"}, "spec": {"volumeSnapshotClassName": "dvp-snapshots",
                                                        "source": {"persistentVolumeClaimName": "data"}}}, ns)
    w.wait(VS, "snap", lambda vs: ((vs or {}).get("status") or {}).get("readyToUse"), ns)
    [vds] = dvp.list(r.VIRTUAL_DISK_SNAPSHOT, dvp_ns).items
    assert vds["spec"]["virtualDiskName"] == handle

    # a PVC restored from the snapshot
    g.create(PVC, pvc_body("restored", "2Gi", {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot",
                                               "name": "snap"}), ns)
    restored = bind(g, ns, "restored", procs)
    disk = dvp.get(r.VIRTUAL_DISK, restored["spec"]["csi"]["volumeHandle"], dvp_ns)
    assert disk["spec"]["dataSource"] == {"type": "ObjectRef", "objectRef": {
        "kind": "VirtualDiskSnapshot", "name": vds["metadata"]["name"]}}

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real external-resizer (v2: VolumeAttributesClass is GA there and on by itself once the guest serves
storage.k8s.io/v1 VolumeAttributesClass, as Kubernetes >= 1.34 does by default) moves a PVC to another
VolumeAttributesClass: ControllerModifyVolume changes the VirtualDisk's storage class in DVP (the simulator).
A change DVP cannot make is Infeasible on the PVC and leaves DVP and the PV as they were."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from csi_sidecars import PV, PVC, SC, VAC, World, ensure, sidecar_world, storage_class
from dvp_common.dvp import resources as r
from dvp_csi import DRIVER_NAME

from testkit.csi.sim import WFFC_CLASS

LATE_CLASS = "dvp-late"  # a guest class on a DVP WaitForFirstConsumer class: DVP takes a class change at once


def vac(name: str, dvp_class: str) -> dict:
    return {"metadata": {"name": name}, "driverName": DRIVER_NAME, "parameters": {"dvpStorageClass": dvp_class}}


@pytest.fixture
def world(dvp_api, guest_controllers, tmp_path) -> Iterator[World]:
    def classes(g) -> None:
        ensure(g, SC, storage_class(LATE_CLASS, WFFC_CLASS))
        ensure(g, VAC, vac("dvp-wffc", "wffc"))
        ensure(g, VAC, vac("dvp-slow", "slow"))
        ensure(g, VAC, vac("dvp-gold", "gold"))  # DVP has no such class

    yield from sidecar_world(dvp_api, guest_controllers, tmp_path, ["csi-provisioner", "csi-resizer"], classes)


def provision(w: World, name: str, guest_class: str) -> tuple[dict, str]:
    pv = w.provision(name, "1Gi", guest_class)  # no attacher runs: the disk stays mounted by no VM
    return pv, pv["spec"]["csi"]["volumeHandle"]


def modify_status(pvc: dict | None) -> str:
    return ((pvc or {}).get("status", {}).get("modifyVolumeStatus") or {}).get("status", "")


@pytest.mark.tools
def test_the_real_resizer_moves_a_pvc_to_another_volume_attributes_class(world):
    w = world
    pv, handle = provision(w, "late", LATE_CLASS)
    disk = w.dvp.get(r.VIRTUAL_DISK, handle, w.dvp_ns)
    assert (disk["status"]["phase"], disk["status"]["storageClassName"]) == ("WaitForFirstConsumer", WFFC_CLASS)

    w.guest.patch(PVC, "late", {"spec": {"volumeAttributesClassName": "dvp-wffc"}}, w.ns)
    pvc = w.wait(PVC, "late", lambda p: (p or {}).get("status", {}).get("currentVolumeAttributesClassName")
                 == "dvp-wffc", w.ns)
    assert "modifyVolumeStatus" not in pvc["status"]
    assert w.guest.get(PV, pv["metadata"]["name"])["spec"]["volumeAttributesClassName"] == "dvp-wffc"
    moved = w.dvp.get(r.VIRTUAL_DISK, handle, w.dvp_ns)
    assert moved["metadata"]["uid"] == disk["metadata"]["uid"]
    assert moved["spec"] == {**disk["spec"], "persistentVolumeClaim": {
        **disk["spec"]["persistentVolumeClaim"], "storageClassName": "wffc"}}
    assert (moved["status"]["phase"], moved["status"]["storageClassName"]) == ("WaitForFirstConsumer", "wffc")


@pytest.mark.tools
@pytest.mark.parametrize(("target", "why"), [
    ("dvp-slow", "storage class cannot be changed if the VirtualDisk not mounted to virtual machine"),
    ("dvp-gold", "DVP has no StorageClass 'gold'"),
])
def test_an_infeasible_class_change_leaves_everything_unchanged(world, target, why):
    w = world
    pv, handle = provision(w, "ready", "dvp-fast")  # Ready in DVP, mounted by no VM: DVP refuses to migrate it
    before = w.env.state()
    w.guest.patch(PVC, "ready", {"spec": {"volumeAttributesClassName": target}}, w.ns)
    pvc = w.wait(PVC, "ready", lambda p: modify_status(p) == "Infeasible", w.ns)
    assert pvc["status"]["modifyVolumeStatus"]["targetVolumeAttributesClassName"] == target
    assert "currentVolumeAttributesClassName" not in pvc["status"]
    [error] = [c for c in pvc["status"]["conditions"] if c["type"] == "ModifyVolumeError"]
    assert why in error["message"], error
    assert "volumeAttributesClassName" not in w.guest.get(PV, pv["metadata"]["name"])["spec"]
    assert w.env.state() == before

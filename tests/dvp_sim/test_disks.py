# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualDisk lifecycles played by the simulator on the real DVP API."""

from __future__ import annotations

import hashlib

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import Forbidden

from sim import quantity, serial
from sim.builders import WAIT, condition, disk, phase_is, vm
from sim.conditions import SERIAL_ANNOTATION


def test_disk_goes_pending_provisioning_ready_with_capacity_and_serial(dvp, ns, sim, record):
    rec = record(R.VIRTUAL_DISK)
    created = dvp.create(R.VIRTUAL_DISK, disk("d1", "3Gi"), ns)
    ready = dvp.wait_for(R.VIRTUAL_DISK, "d1", phase_is("Ready"), WAIT, ns)
    assert rec.until("d1", 3) == ["Pending", "Provisioning", "Ready"]
    assert ready["status"]["capacity"] == "3Gi"
    assert ready["status"]["storageClassName"] == "sim-fast"
    assert condition(ready, "Ready")["status"] == "True"
    uid = created["metadata"]["uid"]
    assert serial(uid) == hashlib.md5(uid.encode()).hexdigest()  # noqa: S324
    final = dvp.wait_for(R.VIRTUAL_DISK, "d1", lambda o: SERIAL_ANNOTATION in o["metadata"].get("annotations", {}),
                         WAIT, ns)
    assert final["metadata"]["annotations"][SERIAL_ANNOTATION] == serial(uid)


def test_wait_for_first_consumer_disk_is_provisioned_once_a_vm_uses_it(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("lazy", "1Gi", "sim-wffc"), ns)
    waiting = dvp.wait_for(R.VIRTUAL_DISK, "lazy", phase_is("WaitForFirstConsumer", "Ready"), WAIT, ns)
    assert waiting["status"]["phase"] == "WaitForFirstConsumer"
    assert condition(waiting, "Ready")["reason"] == "WaitingForFirstConsumer"
    assert "capacity" not in waiting["status"]
    dvp.create(R.VIRTUAL_MACHINE, vm("consumer", ["lazy"]), ns)
    ready = dvp.wait_for(R.VIRTUAL_DISK, "lazy", phase_is("Ready"), WAIT, ns)
    assert ready["status"]["capacity"] == "1Gi"


def test_quota_exceeded_keeps_the_disk_pending_with_a_terminal_reason(dvp, ns, start_sim):
    start_sim(quota_bytes=quantity.parse("3Gi"))
    dvp.create(R.VIRTUAL_DISK, disk("first", "2Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "first", phase_is("Ready"), WAIT, ns)
    dvp.create(R.VIRTUAL_DISK, disk("second", "2Gi"), ns)

    def refused(obj):
        return obj is not None and any(c["reason"] == "QuotaExceeded"
                                       for c in obj.get("status", {}).get("conditions", []))

    second = dvp.wait_for(R.VIRTUAL_DISK, "second", refused, WAIT, ns)
    assert second["status"]["phase"] == "Pending"
    ready = condition(second, "Ready")
    assert (ready["status"], ready["reason"]) == ("False", "QuotaExceeded")
    assert "exceeds the project quota of 3Gi" in ready["message"]


def types(obj: dict) -> set[str]:
    return {c["type"] for c in obj["status"].get("conditions") or []}


def test_growing_the_size_goes_through_resizing_and_shrinking_is_refused(dvp, ns, sim, record):
    rec = record(R.VIRTUAL_DISK)
    dvp.create(R.VIRTUAL_DISK, disk("grow", "1Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "grow", phase_is("Ready"), WAIT, ns)
    dvp.patch(R.VIRTUAL_DISK, "grow", {"spec": {"persistentVolumeClaim": {"size": "5Gi"}}}, ns)
    grown = dvp.wait_for(R.VIRTUAL_DISK, "grow", lambda o: o["status"].get("capacity") == "5Gi", WAIT, ns)
    assert grown["status"]["phase"] == "Ready"
    assert rec.until("grow", 5) == ["Pending", "Provisioning", "Ready", "Resizing", "Ready"]
    assert "Resizing" not in types(grown)  # DVP removes it once grown
    with pytest.raises(Forbidden, match="should be greater than or equal to the current value"):
        dvp.patch(R.VIRTUAL_DISK, "grow", {"spec": {"persistentVolumeClaim": {"size": "2Gi"}}}, ns)


def test_a_grow_the_quota_refuses_keeps_the_disk_ready_with_resizing_not_available(dvp, ns, start_sim):
    start_sim(quota_status=True)
    dvp.create(R.RESOURCE_QUOTA, {"metadata": {"name": "grow-quota"}, "spec": {"hard": {
        "requests.storage": "2Gi"}}}, ns)
    dvp.create(R.VIRTUAL_DISK, disk("capped", "1Gi"), ns)
    ready = dvp.wait_for(R.VIRTUAL_DISK, "capped", phase_is("Ready"), WAIT, ns)
    pvc = ready["status"]["target"]["persistentVolumeClaimName"]
    dvp.patch(R.VIRTUAL_DISK, "capped", {"spec": {"persistentVolumeClaim": {"size": "3Gi"}}}, ns)
    refused = dvp.wait_for(R.VIRTUAL_DISK, "capped", lambda o: "Resizing" in types(o), WAIT, ns)
    resizing = condition(refused, "Resizing")
    assert (refused["status"]["phase"], refused["status"]["capacity"]) == ("Ready", "1Gi")
    assert (resizing["status"], resizing["reason"], resizing["message"]) == (
        "False", "NotAvailable",
        f'Disk resizing is not allowed: persistentvolumeclaims "{pvc}" is forbidden: exceeded quota: grow-quota, '
        "requested: requests.storage=3Gi, used: requests.storage=0, limited: requests.storage=2Gi.")
    dvp.patch(R.RESOURCE_QUOTA, "grow-quota", {"spec": {"hard": {"requests.storage": "4Gi"}}}, ns)
    grown = dvp.wait_for(R.VIRTUAL_DISK, "capped", lambda o: o["status"].get("capacity") == "3Gi", WAIT, ns)
    assert "Resizing" not in types(grown)


def test_storage_class_change_migrates_the_disk(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("mover", "1Gi"), ns)
    dvp.create(R.VIRTUAL_MACHINE, vm("mover-vm", ["mover"]), ns)  # DVP migrates only a disk a running VM mounts
    dvp.wait_for(R.VIRTUAL_DISK, "mover", lambda o: (o.get("status") or {}).get("attachedToVirtualMachines"),
                 WAIT, ns)
    dvp.patch(R.VIRTUAL_DISK, "mover", {"spec": {"persistentVolumeClaim": {"storageClassName": "sim-other"}}}, ns)
    moved = dvp.wait_for(R.VIRTUAL_DISK, "mover",
                         lambda o: o["status"].get("storageClassName") == "sim-other" and
                         o["status"]["phase"] == "Ready", WAIT, ns)
    assert moved["status"]["capacity"] == "1Gi"
    state = moved["status"]["migrationState"]
    assert state["result"] == "Succeeded" and state["sourcePVC"] != state["targetPVC"]
    assert moved["status"]["target"]["persistentVolumeClaimName"] == state["targetPVC"]


def test_a_disk_not_provisioned_yet_takes_a_new_storage_class_without_migrating(dvp, ns, sim, record):
    rec = record(R.VIRTUAL_DISK)
    dvp.create(R.VIRTUAL_DISK, disk("late", "1Gi", "sim-wffc"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "late", phase_is("WaitForFirstConsumer"), WAIT, ns)
    dvp.patch(R.VIRTUAL_DISK, "late", {"spec": {"persistentVolumeClaim": {"storageClassName": "sim-other"}}}, ns)
    moved = dvp.wait_for(R.VIRTUAL_DISK, "late", phase_is("Ready"), WAIT, ns)  # sim-other binds immediately
    assert moved["status"]["storageClassName"] == "sim-other" and "migrationState" not in moved["status"]
    assert "Migrating" not in rec.of("late")


@pytest.mark.parametrize(("kind", "name", "capacity"), [("ClusterVirtualImage", "ubuntu", "2Gi"),
                                                         ("VirtualImage", "local", "2Gi")])
def test_disk_from_an_image_takes_the_image_size(dvp, ns, sim, kind, name, capacity):
    if kind == "VirtualImage":
        from sim import seed

        seed.image(dvp, ns, name)
    dvp.create(R.VIRTUAL_DISK, disk("boot", None, source=(kind, name)), ns)
    ready = dvp.wait_for(R.VIRTUAL_DISK, "boot", phase_is("Ready"), WAIT, ns)
    assert ready["status"]["capacity"] == capacity
    assert condition(ready, "DatasourceReady")["status"] == "True"


def test_disk_restored_from_a_snapshot_gets_the_snapshot_size(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("origin", "4Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "origin", phase_is("Ready"), WAIT, ns)
    dvp.create(R.VIRTUAL_DISK_SNAPSHOT, {"metadata": {"name": "snap"}, "spec": {"virtualDiskName": "origin"}}, ns)
    snap = dvp.wait_for(R.VIRTUAL_DISK_SNAPSHOT, "snap", phase_is("Ready"), WAIT, ns)
    assert snap["status"]["volumeSnapshotName"] == "vs-snap" and "size" not in snap["status"]  # DVP has no such field
    dvp.create(R.VIRTUAL_DISK, disk("restored", None, source=("VirtualDiskSnapshot", "snap")), ns)
    assert dvp.wait_for(R.VIRTUAL_DISK, "restored", phase_is("Ready"), WAIT, ns)["status"]["capacity"] == "4Gi"


def test_missing_data_source_is_reported_and_recovers_when_it_appears(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("orphan", "1Gi", source=("VirtualImage", "later")), ns)

    def reason(obj):
        conds = (obj or {}).get("status", {}).get("conditions")
        return condition(obj, "Ready")["reason"] if conds else None

    first = dvp.wait_for(R.VIRTUAL_DISK, "orphan", lambda o: reason(o) == "DatasourceIsNotFound", WAIT, ns)
    assert first["status"]["phase"] == "Pending"
    from sim import seed

    seed.image(dvp, ns, "later")
    assert dvp.wait_for(R.VIRTUAL_DISK, "orphan", phase_is("Ready"), WAIT, ns)


def test_missing_storage_class_is_reported(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("nosc", "1Gi", "does-not-exist"), ns)
    obj = dvp.wait_for(R.VIRTUAL_DISK, "nosc", lambda o: o is not None and any(
        c["reason"] == "StorageClassIsNotReady" for c in o.get("status", {}).get("conditions", [])), WAIT, ns)
    assert obj["status"]["phase"] == "Pending"
    assert condition(obj, "Ready")["message"] == 'StorageClass "does-not-exist" not found'
    assert condition(obj, "StorageClassReady")["status"] == "False"


def test_a_lost_pvc_makes_the_disk_pvc_lost_for_good(dvp, ns, sim):
    dvp.create(R.VIRTUAL_DISK, disk("gone", "1Gi"), ns)
    ready = dvp.wait_for(R.VIRTUAL_DISK, "gone", phase_is("Ready"), WAIT, ns)
    pvc = ready["status"]["target"]["persistentVolumeClaimName"]
    sim.lose_pvc(ns, "gone")
    lost = dvp.wait_for(R.VIRTUAL_DISK, "gone", phase_is("PVCLost"), WAIT, ns)
    cond = condition(lost, "Ready")
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "PVCLost", f"PVC {pvc} not found")
    # growing it (a new write, a new reconcile) does not bring it back: DVP makes no new PVC
    dvp.patch(R.VIRTUAL_DISK, "gone", {"spec": {"persistentVolumeClaim": {"size": "2Gi"}}}, ns)
    after = dvp.wait_for(R.VIRTUAL_DISK, "gone", lambda o: o["status"].get("observedGeneration") == 2, WAIT, ns)
    assert after["status"]["phase"] == "PVCLost" and after["status"]["capacity"] == "1Gi"


def test_resource_quota_storage_limits_admit_disks_and_their_usage_is_published(dvp, ns, start_sim):
    start_sim(quota_status=True)
    dvp.create(R.RESOURCE_QUOTA, {"metadata": {"name": "project"}, "spec": {"hard": {
        "requests.storage": "5Gi", "sim-fast.storageclass.storage.k8s.io/requests.storage": "2Gi"}}}, ns)
    dvp.create(R.VIRTUAL_DISK, disk("a", "1Gi"), ns)
    dvp.wait_for(R.VIRTUAL_DISK, "a", phase_is("Ready"), WAIT, ns)
    dvp.create(R.VIRTUAL_DISK, disk("b", "2Gi"), ns)  # sim-fast: 1Gi + 2Gi > 2Gi
    refused = dvp.wait_for(R.VIRTUAL_DISK, "b", lambda o: any(
        c.get("reason") == "QuotaExceeded" for c in (o.get("status") or {}).get("conditions") or []), WAIT, ns)
    assert refused["status"]["phase"] == "Pending"
    assert condition(refused, "Ready")["message"] == (
        "exceeded quota: project, requested: sim-fast.storageclass.storage.k8s.io/requests.storage=2Gi, "
        "used: sim-fast.storageclass.storage.k8s.io/requests.storage=1Gi, "
        "limited: sim-fast.storageclass.storage.k8s.io/requests.storage=2Gi")
    dvp.create(R.VIRTUAL_DISK, disk("c", "2Gi", "sim-other"), ns)  # no class limit; the total fits: 1Gi + 2Gi
    dvp.wait_for(R.VIRTUAL_DISK, "c", phase_is("Ready"), WAIT, ns)
    quota = dvp.wait_for(R.RESOURCE_QUOTA, "project", lambda q: (q.get("status") or {}).get("used", {}).get(
        "requests.storage") == "3Gi", WAIT, ns)
    assert quota["status"]["used"] == {"requests.storage": "3Gi",
                                       "sim-fast.storageclass.storage.k8s.io/requests.storage": "1Gi"}
    assert quota["status"]["hard"] == quota["spec"]["hard"]
    dvp.delete(R.VIRTUAL_DISK, "a", ns)  # room again (class 2Gi of 2Gi, total 4Gi of 5Gi): "b" is admitted
    dvp.wait_for(R.VIRTUAL_DISK, "b", phase_is("Ready"), WAIT, ns)
    dvp.create(R.VIRTUAL_DISK, disk("d", "2Gi", "sim-other"), ns)  # the total is full now: 6Gi > 5Gi
    dvp.wait_for(R.VIRTUAL_DISK, "d", lambda o: "requested: requests.storage=2Gi, used: requests.storage=4Gi" in str(
        (o.get("status") or {}).get("conditions")), WAIT, ns)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ControllerPublish/Unpublish through VMBDAs: exact objects and codes, no double attach, dead VMs, ownership."""

from __future__ import annotations

import dataclasses
import hashlib
import threading

import grpc
import pytest
from csi_env import CLUSTER, OTHER_CLUSTER, make_settings, serve
from csi_requests import create, expect_code, publish, unpublish
from dvp_csi import metrics
from dvp_csi.domain import labels
from dvp_csi.dvp.memory import MemoryDvp
from dvp_csi.dvp.port import Kind
from dvp_csi.generated import csi_pb2

C = grpc.StatusCode


def vmbdas(dvp):
    return sorted(dvp.list(Kind.VMBDA, {}), key=lambda a: a["metadata"]["name"])


def test_publish_creates_one_labelled_vmbda_and_hands_over_the_serial(csi, dvp):
    csi.controller.CreateVolume(create("pvc-p"))
    resp = csi.controller.ControllerPublishVolume(publish("pvc-p"))
    uid = dvp.get(Kind.VIRTUAL_DISK, "pvc-p")["metadata"]["uid"]
    assert dict(resp.publish_context) == {"serial": hashlib.md5(uid.encode(), usedforsecurity=False).hexdigest()}
    [att] = vmbdas(dvp)
    assert att["metadata"]["name"] == "vmbda-pvc-p-vm-worker-0"
    assert att["metadata"]["labels"] == {
        labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "csi", labels.MANAGED_BY: "deckhouse",
        "virtualMachineDiskName": "pvc-p", "virtualMachineName": "vm-worker-0", labels.HOSTNAME: "worker-0"}
    assert att["spec"] == {"virtualMachineName": "vm-worker-0",
                           "blockDeviceRef": {"kind": "VirtualDisk", "name": "pvc-p"}}
    assert csi.controller.ControllerPublishVolume(publish("pvc-p")) == resp  # idempotent
    assert len(vmbdas(dvp)) == 1


def test_publish_while_attached_to_another_running_vm_is_failed_precondition(csi, dvp):
    csi.controller.CreateVolume(create("pvc-m"))
    csi.controller.ControllerPublishVolume(publish("pvc-m", node="worker-1"))
    expect_code(C.FAILED_PRECONDITION, csi.controller.ControllerPublishVolume, publish("pvc-m"),
                "attached to VirtualMachine vm-worker-1")
    assert [a["spec"]["virtualMachineName"] for a in vmbdas(dvp)] == ["vm-worker-1"]
    # the move: unpublish there first, then publish here
    csi.controller.ControllerUnpublishVolume(unpublish("pvc-m", node="worker-1"))
    assert dvp.get(Kind.VIRTUAL_DISK, "pvc-m")["status"]["attachedToVirtualMachines"] == []
    csi.controller.ControllerPublishVolume(publish("pvc-m"))
    assert [a["spec"]["virtualMachineName"] for a in vmbdas(dvp)] == ["vm-worker-0"]


@pytest.mark.parametrize("death", ["deleted", "Stopped"])
def test_publish_moves_a_volume_off_a_dead_vm(csi, dvp, death):
    csi.controller.CreateVolume(create("pvc-d"))
    csi.controller.ControllerPublishVolume(publish("pvc-d", node="worker-1"))
    if death == "deleted":
        dvp.remove(Kind.VIRTUAL_MACHINE, "vm-worker-1")
    else:
        dvp.set_vm_phase("vm-worker-1", "Stopped")
    csi.controller.ControllerPublishVolume(publish("pvc-d"))
    assert [a["spec"]["virtualMachineName"] for a in vmbdas(dvp)] == ["vm-worker-0"]
    assert [a["name"] for a in dvp.get(Kind.VIRTUAL_DISK, "pvc-d")["status"]["attachedToVirtualMachines"]] == [
        "vm-worker-0"]


def test_reaper_detaches_only_our_vmbdas_of_vms_that_no_longer_run(csi, dvp):
    for name, node in (("pvc-a", "worker-0"), ("pvc-b", "worker-1")):
        csi.controller.CreateVolume(create(name))
        csi.controller.ControllerPublishVolume(publish(name, node=node))
    capdvp_att = dvp.put(Kind.VMBDA, {"metadata": {"name": "vm-worker-1-additional", "labels": {
        labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "capdvp"}},
        "spec": {"virtualMachineName": "vm-worker-1", "blockDeviceRef": {"kind": "VirtualDisk", "name": "x"}}})
    dvp.set_vm_phase("vm-worker-1", "Stopped")
    assert csi.driver.attachments.reap_dead_vms() == ["vmbda-pvc-b-vm-worker-1"]
    assert [a["metadata"]["name"] for a in vmbdas(dvp)] == ["vm-worker-1-additional", "vmbda-pvc-a-vm-worker-0"]
    assert dvp.get(Kind.VMBDA, "vm-worker-1-additional") == capdvp_att
    assert csi.driver.attachments.reap_dead_vms() == []


def test_publish_to_a_full_vm_is_resource_exhausted(tmp_path):
    dvp = MemoryDvp()
    dvp.add_vm("vm-full", "full", CLUSTER, static_disks=15)
    for r in serve(make_settings(tmp_path), dvp):
        r.controller.CreateVolume(create("pvc-1"))
        r.controller.CreateVolume(create("pvc-2"))
        r.controller.ControllerPublishVolume(publish("pvc-1", node="full"))
        expect_code(C.RESOURCE_EXHAUSTED, r.controller.ControllerPublishVolume, publish("pvc-2", node="full"),
                    "already has 16 block devices")


def test_dvps_capacity_signal_on_a_pending_attachment_is_resource_exhausted(tmp_path):
    # Our own count passes (it allows more than DVP here), so DVP's answer is what decides: the VMBDA stays
    # Pending, Attached=False, and DiskAttachmentCapacityAvailableType=False with reason CapacityReached.
    dvp = MemoryDvp()
    dvp.add_vm("vm-full", "full", CLUSTER, static_disks=16)
    s = make_settings(tmp_path)
    s = dataclasses.replace(s, max_block_devices=32, timeouts=dataclasses.replace(s.timeouts, attach=5))
    for r in serve(s, dvp):
        r.controller.CreateVolume(create("pvc-1"))
        expect_code(C.RESOURCE_EXHAUSTED, r.controller.ControllerPublishVolume, publish("pvc-1", node="full"),
                    "VirtualMachineBlockDeviceAttachment vmbda-pvc-1-vm-full: Can not attach 17 block devices (16 is "
                    "maximum) to `VirtualMachine` 'vm-full'")
        assert vmbdas(dvp) == []  # not left Pending to attach behind the caller's back


def test_publish_to_a_stopped_vm_times_out_as_deadline_exceeded(tmp_path):
    dvp = MemoryDvp()
    dvp.add_vm("vm-off", "off", CLUSTER, phase="Stopped")
    s = make_settings(tmp_path)
    for r in serve(dataclasses.replace(s, timeouts=dataclasses.replace(s.timeouts, attach=0.3)), dvp):
        r.controller.CreateVolume(create("pvc-1"))
        expect_code(C.DEADLINE_EXCEEDED, r.controller.ControllerPublishVolume, publish("pvc-1", node="off"),
                    "is not attached yet (phase 'Pending')")


@pytest.mark.parametrize(("request_", "code", "text"), [
    (csi_pb2.ControllerPublishVolumeRequest(node_id="worker-0"), C.INVALID_ARGUMENT, "volume_id is required"),
    (csi_pb2.ControllerPublishVolumeRequest(volume_id="pvc-1"), C.INVALID_ARGUMENT, "node_id is required"),
    (csi_pb2.ControllerPublishVolumeRequest(volume_id="pvc-1", node_id="worker-0"), C.INVALID_ARGUMENT,
     "volume_capability is required"),
    (publish("pvc-missing"), C.NOT_FOUND, "volume pvc-missing"),
    (publish("pvc-1", node="ghost"), C.NOT_FOUND, "node ghost"),
    (publish("pvc-1", node="stranger"), C.NOT_FOUND, "node stranger"),  # a VM of another cluster
])
def test_publish_rejections_change_nothing(csi, dvp, request_, code, text):
    csi.controller.CreateVolume(create("pvc-1"))
    dvp.add_vm("vm-stranger", "stranger", OTHER_CLUSTER)
    before = dvp.snapshot_state()
    expect_code(code, csi.controller.ControllerPublishVolume, request_, text)
    assert dvp.snapshot_state() == before


def test_unpublish(csi, dvp):
    csi.controller.CreateVolume(create("pvc-u"))
    csi.controller.ControllerPublishVolume(publish("pvc-u"))
    csi.controller.ControllerUnpublishVolume(unpublish("pvc-u"))
    assert vmbdas(dvp) == []
    csi.controller.ControllerUnpublishVolume(unpublish("pvc-u"))  # already detached: OK
    csi.controller.ControllerUnpublishVolume(unpublish("pvc-never-existed"))
    expect_code(C.INVALID_ARGUMENT, csi.controller.ControllerUnpublishVolume, unpublish("pvc-u", node=""),
                "node_id is required")


def test_unpublish_that_dvp_does_not_finish_is_unavailable(csi, dvp):
    csi.controller.CreateVolume(create("pvc-slow"))
    csi.controller.ControllerPublishVolume(publish("pvc-slow"))
    dvp.on_detach = None
    real_delete = dvp.delete
    dvp.delete = lambda kind, name: True  # DVP accepts the delete but the VMBDA lingers (finalizer)
    expect_code(C.UNAVAILABLE, csi.controller.ControllerUnpublishVolume, unpublish("pvc-slow"),
                "still attached to VirtualMachine vm-worker-0")
    dvp.delete = real_delete


# -- tenant isolation: a guest user who can create PVs must not reach DVP disks that are not this cluster's volumes

def seed_foreign(dvp):
    dvp.put(Kind.VIRTUAL_DISK, {"metadata": {"name": "vm-worker-0-boot", "labels": {
        labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "capdvp", labels.HOSTNAME: "worker-0"}},
        "spec": {"persistentVolumeClaim": {"size": "20Gi"}}, "status": {"phase": "Ready", "capacity": "20Gi",
                                                                        "attachedToVirtualMachines": [
                                                                            {"name": "vm-worker-0"}]}})
    dvp.put(Kind.VIRTUAL_DISK, {"metadata": {"name": "pvc-other", "labels": {
        labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi"}},
        "spec": {"persistentVolumeClaim": {"size": "1Gi"}}, "status": {"phase": "Ready", "capacity": "1Gi"}})
    dvp.put(Kind.VIRTUAL_DISK, {"metadata": {"name": "unlabelled"}, "spec": {}, "status": {"phase": "Ready"}})
    dvp.put(Kind.VMBDA, {"metadata": {"name": "vmbda-other", "labels": {
        labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi", "virtualMachineDiskName": "pvc-other",
        labels.HOSTNAME: "worker-0"}},
        "spec": {"virtualMachineName": "vm-worker-0", "blockDeviceRef": {"kind": "VirtualDisk", "name": "pvc-other"}}})


@pytest.mark.parametrize("victim", ["vm-worker-0-boot", "pvc-other", "unlabelled"])
def test_every_controller_path_refuses_foreign_disks_and_changes_nothing(csi, dvp, victim):
    seed_foreign(dvp)
    before = dvp.snapshot_state()
    expect_code(C.NOT_FOUND, csi.controller.ControllerPublishVolume, publish(victim, node="worker-1"))
    expect_code(C.NOT_FOUND, csi.controller.ControllerUnpublishVolume, unpublish(victim))
    expect_code(C.PERMISSION_DENIED, csi.controller.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id=victim))
    req = csi_pb2.ControllerExpandVolumeRequest(volume_id=victim)
    req.capacity_range.required_bytes = 100 << 30
    expect_code(C.NOT_FOUND, csi.controller.ControllerExpandVolume, req)
    expect_code(C.NOT_FOUND, csi.controller.CreateSnapshot,
                csi_pb2.CreateSnapshotRequest(name="snap-steal", source_volume_id=victim))
    expect_code(C.NOT_FOUND, csi.controller.CreateVolume, create("pvc-steal", volume=victim))
    expect_code(C.NOT_FOUND, csi.controller.ControllerGetVolume, csi_pb2.ControllerGetVolumeRequest(volume_id=victim))
    assert dvp.snapshot_state() == before
    listed = csi.controller.ListVolumes(csi_pb2.ListVolumesRequest())
    assert list(listed.entries) == []


def test_admin_adoption_label_makes_an_existing_disk_usable(csi, dvp):
    def disk(name, lbls):
        dvp.put(Kind.VIRTUAL_DISK, {"metadata": {"name": name, "labels": lbls},
                                    "spec": {"persistentVolumeClaim": {"size": "5Gi"}},
                                    "status": {"phase": "Ready", "capacity": "5Gi"}})

    disk("legacy-data", {labels.ADOPT_BY_CLUSTER: CLUSTER})
    disk("legacy-other", {labels.ADOPT_BY_CLUSTER: OTHER_CLUSTER})
    disk("boot-adopt", {labels.ADOPT_BY_CLUSTER: CLUSTER, labels.COMPONENT: "capdvp"})
    csi.controller.ControllerPublishVolume(publish("legacy-data"))
    assert [a["spec"]["blockDeviceRef"]["name"] for a in vmbdas(dvp)] == ["legacy-data"]
    csi.controller.ControllerUnpublishVolume(unpublish("legacy-data"))
    expect_code(C.NOT_FOUND, csi.controller.ControllerPublishVolume, publish("legacy-other"))
    expect_code(C.NOT_FOUND, csi.controller.ControllerPublishVolume, publish("boot-adopt"))
    assert vmbdas(dvp) == []


def test_the_reaper_thread_detaches_in_the_background_and_counts(tmp_path):
    dvp = MemoryDvp()
    dvp.add_vm("vm-a", "a", CLUSTER)
    s = make_settings(tmp_path, dead_vm_reap_interval=0.05)
    for r in serve(s, dvp):
        r.controller.CreateVolume(create("pvc-bg"))
        r.controller.ControllerPublishVolume(publish("pvc-bg", node="a"))
        before = metrics.REGISTRY.get_sample_value("dvp_csi_dead_vm_detaches_total") or 0
        stop = threading.Event()
        thread = r.driver.start_reaper(stop)
        try:
            dvp.remove(Kind.VIRTUAL_MACHINE, "vm-a")
            dvp.wait(Kind.VMBDA, "vmbda-pvc-bg-vm-a", lambda a: a is None, 5)
        finally:
            stop.set()
            thread.join(5)
        assert metrics.REGISTRY.get_sample_value("dvp_csi_dead_vm_detaches_total") == before + 1
        assert not thread.is_alive()


class _TerminatingVmbdas(MemoryDvp):
    """DVP keeps a deleted VMBDA Terminating (finalizer) for a while and its webhook refuses a new attachment of
    the same disk meanwhile: 403 `admission webhook "vmbda...." denied the request`."""

    def delete(self, kind, name):
        if kind is Kind.VMBDA:
            att = self.get(kind, name)
            if att is not None:
                att["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
                self.put(kind, att)
                return True
        return super().delete(kind, name)

    def create(self, kind, body):
        if kind is Kind.VMBDA:
            disk = body["spec"]["blockDeviceRef"]["name"]
            if any(a["metadata"].get("deletionTimestamp") and a["spec"]["blockDeviceRef"]["name"] == disk
                   for a in self.list(Kind.VMBDA, {})):
                from dvp_csi.dvp.port import DvpRefused
                from harness.dvp_answers import webhook_denial

                raise DvpRefused(str(webhook_denial(
                    "VirtualMachineBlockDeviceAttachment", f"the previous attachment of VirtualDisk {disk} is "
                    "still terminating", body["metadata"]["name"])))
        return super().create(kind, body)


def test_attach_while_the_previous_vmbda_terminates_is_aborted_for_a_retry(tmp_path):
    dvp = _TerminatingVmbdas()
    dvp.add_vm("vm-worker-0", "worker-0", CLUSTER)
    dvp.add_vm("vm-worker-1", "worker-1", CLUSTER)
    for r in serve(make_settings(tmp_path), dvp):
        r.controller.CreateVolume(create("pvc-t"))
        r.controller.ControllerPublishVolume(publish("pvc-t", node="worker-1"))
        dvp.set_vm_phase("vm-worker-1", "Stopped")  # its node died: the driver detaches, DVP keeps it Terminating
        expect_code(C.ABORTED, r.controller.ControllerPublishVolume, publish("pvc-t", node="worker-0"),
                    "an earlier attachment is still terminating")

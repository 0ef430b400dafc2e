# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ControllerPublish/Unpublish through VMBDAs: exact objects and codes, no double attach, dead VMs, ownership."""

from __future__ import annotations

import dataclasses
import hashlib
import threading

import grpc
import pytest
from dvp_common.dvp import resources as r
from dvp_csi import metrics
from dvp_csi.domain import labels
from dvp_csi.generated import csi_pb2

from sim.builders import phase_is
from sim.builders import vmbda as vmbda_body
from testkit.csi.env import CLUSTER, OTHER_CLUSTER, TIMEOUTS
from testkit.csi.requests import create, expect_code, publish, unpublish
from testkit.csi.sim import sim_env

C = grpc.StatusCode


def vmbdas(dvp):
    return dvp.items(r.VMBDA)


def test_publish_creates_one_labelled_vmbda_and_hands_over_the_serial(csi, dvp):
    csi.controller.CreateVolume(create("pvc-p"))
    resp = csi.controller.ControllerPublishVolume(publish("pvc-p"))
    uid = dvp.get(r.VIRTUAL_DISK, "pvc-p")["metadata"]["uid"]
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
    assert dvp.get(r.VIRTUAL_DISK, "pvc-m")["status"].get("attachedToVirtualMachines") in (None, [])
    csi.controller.ControllerPublishVolume(publish("pvc-m"))
    assert [a["spec"]["virtualMachineName"] for a in vmbdas(dvp)] == ["vm-worker-0"]


@pytest.mark.parametrize("death", ["deleted", "Stopped"])
def test_publish_moves_a_volume_off_a_dead_vm(csi, dvp, death):
    csi.controller.CreateVolume(create("pvc-d"))
    csi.controller.ControllerPublishVolume(publish("pvc-d", node="worker-1"))
    if death == "deleted":
        dvp.delete_vm("vm-worker-1")
    else:
        dvp.stop_vm("vm-worker-1")
    retry_while_the_old_attachment_terminates(dvp, csi, publish("pvc-d"), "vmbda-pvc-d-vm-worker-1")
    assert [a["spec"]["virtualMachineName"] for a in vmbdas(dvp)] == ["vm-worker-0"]
    assert [a["name"] for a in dvp.get(r.VIRTUAL_DISK, "pvc-d")["status"]["attachedToVirtualMachines"]] == [
        "vm-worker-0"]


def retry_while_the_old_attachment_terminates(dvp, csi, request, old):
    """The driver removes the stale VMBDA first; DVP refuses the new one while the old one terminates (ABORTED,
    the attacher retries once it is gone)."""
    try:
        csi.controller.ControllerPublishVolume(request)
    except grpc.RpcError as err:
        assert err.code() == C.ABORTED, err
        dvp.wait(r.VMBDA, old, lambda a: a is None)
        csi.controller.ControllerPublishVolume(request)


def test_reaper_detaches_only_our_vmbdas_of_vms_that_no_longer_run(csi, dvp):
    for name, node in (("pvc-a", "worker-0"), ("pvc-b", "worker-1")):
        csi.controller.CreateVolume(create(name))
        csi.controller.ControllerPublishVolume(publish(name, node=node))
    body = vmbda_body("vm-worker-1-additional", "vm-worker-1", "vm-worker-1-additional-disk-0")
    body["metadata"]["labels"] = {labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "capdvp"}
    capdvp_att = dvp.dvp.create(r.VMBDA, body, dvp.ns)
    dvp.stop_vm("vm-worker-1")
    assert csi.driver.attachments.reap_dead_vms() == ["vmbda-pvc-b-vm-worker-1"]
    dvp.wait(r.VMBDA, "vmbda-pvc-b-vm-worker-1", lambda a: a is None)
    assert [a["metadata"]["name"] for a in vmbdas(dvp)] == ["vm-worker-1-additional", "vmbda-pvc-a-vm-worker-0"]
    kept = dvp.get(r.VMBDA, "vm-worker-1-additional")
    assert kept["metadata"]["uid"] == capdvp_att["metadata"]["uid"] and "deletionTimestamp" not in kept["metadata"]
    assert csi.driver.attachments.reap_dead_vms() == []


def test_publish_to_a_full_vm_is_resource_exhausted(dvp_api, tmp_path):
    for env in sim_env(dvp_api, tmp_path, nodes={}):
        env.add_vm("vm-full", "full", static_disks=15)
        env.csi.controller.CreateVolume(create("pvc-1"))
        env.csi.controller.CreateVolume(create("pvc-2"))
        env.csi.controller.ControllerPublishVolume(publish("pvc-1", node="full"))
        expect_code(C.RESOURCE_EXHAUSTED, env.csi.controller.ControllerPublishVolume, publish("pvc-2", node="full"),
                    "already has 16 block devices")


def test_dvps_capacity_signal_on_a_pending_attachment_is_resource_exhausted(dvp_api, tmp_path):
    # Our own count passes (it allows more than DVP here), so DVP's answer is what decides: the VMBDA stays
    # Pending, Attached=False, and DiskAttachmentCapacityAvailableType=False with reason CapacityReached.
    for env in sim_env(dvp_api, tmp_path, nodes={}, max_block_devices=32):
        env.add_vm("vm-full", "full", static_disks=16)
        env.csi.controller.CreateVolume(create("pvc-1"))
        expect_code(C.RESOURCE_EXHAUSTED, env.csi.controller.ControllerPublishVolume, publish("pvc-1", node="full"),
                    "VirtualMachineBlockDeviceAttachment vmbda-pvc-1-vm-full: Can not attach 17 block devices (16 is "
                    'maximum) to `VirtualMachine` "vm-full"')
        env.wait(r.VMBDA, "vmbda-pvc-1-vm-full", lambda a: a is None)  # not left Pending to attach behind our back


def test_publish_to_a_stopped_vm_times_out_as_deadline_exceeded(dvp_api, tmp_path):
    for env in sim_env(dvp_api, tmp_path, nodes={}, timeouts=dataclasses.replace(TIMEOUTS, attach=0.5)):
        env.add_vm("vm-off", "off", run_policy="AlwaysOff")
        env.csi.controller.CreateVolume(create("pvc-1"))
        expect_code(C.DEADLINE_EXCEEDED, env.csi.controller.ControllerPublishVolume, publish("pvc-1", node="off"),
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
    before = dvp.state()
    expect_code(code, csi.controller.ControllerPublishVolume, request_, text)
    assert dvp.state() == before


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
    dvp.hold(r.VMBDA, "vmbda-pvc-slow-vm-worker-0")  # DVP accepts the delete but the VMBDA lingers (finalizer)
    expect_code(C.UNAVAILABLE, csi.controller.ControllerUnpublishVolume, unpublish("pvc-slow"),
                "still attached to VirtualMachine vm-worker-0")
    dvp.release(r.VMBDA, "vmbda-pvc-slow-vm-worker-0")
    dvp.wait(r.VMBDA, "vmbda-pvc-slow-vm-worker-0", lambda a: a is None)
    csi.controller.ControllerUnpublishVolume(unpublish("pvc-slow"))


# -- tenant isolation: a guest user who can create PVs must not reach DVP disks that are not this cluster's volumes

def seed_foreign(dvp):
    """vm-worker-0-boot is capdvp's (the node's boot disk); add another cluster's volume attached to our node's VM
    and an unlabelled disk, and let DVP settle."""
    dvp.put_disk("pvc-other", {labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi"})
    dvp.put_disk("unlabelled", {})
    body = vmbda_body("vmbda-other", "vm-worker-0", "pvc-other")
    body["metadata"]["labels"] = {labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi",
                                  "virtualMachineDiskName": "pvc-other", labels.HOSTNAME: "worker-0"}
    dvp.dvp.create(r.VMBDA, body, dvp.ns)
    dvp.wait(r.VMBDA, "vmbda-other", phase_is("Attached"))
    dvp.wait(r.VIRTUAL_DISK, "pvc-other", lambda d: (d.get("status") or {}).get("attachedToVirtualMachines"))


@pytest.mark.parametrize("victim", ["vm-worker-0-boot", "pvc-other", "unlabelled"])
def test_every_controller_path_refuses_foreign_disks_and_changes_nothing(csi, dvp, victim):
    seed_foreign(dvp)
    before = dvp.state()
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
    assert dvp.state() == before
    listed = csi.controller.ListVolumes(csi_pb2.ListVolumesRequest())
    assert list(listed.entries) == []


def test_admin_adoption_label_makes_an_existing_disk_usable(csi, dvp):
    dvp.put_disk("legacy-data", {labels.ADOPT_BY_CLUSTER: CLUSTER}, "5Gi")
    dvp.put_disk("legacy-other", {labels.ADOPT_BY_CLUSTER: OTHER_CLUSTER}, "5Gi")
    dvp.put_disk("boot-adopt", {labels.ADOPT_BY_CLUSTER: CLUSTER, labels.COMPONENT: "capdvp"}, "5Gi")
    csi.controller.ControllerPublishVolume(publish("legacy-data"))
    assert [a["spec"]["blockDeviceRef"]["name"] for a in vmbdas(dvp)] == ["legacy-data"]
    csi.controller.ControllerUnpublishVolume(unpublish("legacy-data"))
    expect_code(C.NOT_FOUND, csi.controller.ControllerPublishVolume, publish("legacy-other"))
    expect_code(C.NOT_FOUND, csi.controller.ControllerPublishVolume, publish("boot-adopt"))
    assert vmbdas(dvp) == []


def test_the_reaper_thread_detaches_in_the_background_and_counts(dvp_api, tmp_path):
    for env in sim_env(dvp_api, tmp_path, nodes={"a": "vm-a"}, dead_vm_reap_interval=0.05):
        env.csi.controller.CreateVolume(create("pvc-bg"))
        env.csi.controller.ControllerPublishVolume(publish("pvc-bg", node="a"))
        before = metrics.REGISTRY.get_sample_value("dvp_csi_dead_vm_detaches_total") or 0
        stop = threading.Event()
        thread = env.csi.driver.start_reaper(stop)
        try:
            env.stop_vm("vm-a")
            env.wait(r.VMBDA, "vmbda-pvc-bg-vm-a", lambda a: a is None)
        finally:
            stop.set()
            thread.join(5)
        assert metrics.REGISTRY.get_sample_value("dvp_csi_dead_vm_detaches_total") == before + 1
        assert not thread.is_alive()


def test_attach_while_the_previous_vmbda_terminates_is_aborted_for_a_retry(csi, dvp):
    """DVP keeps a deleted VMBDA Terminating (finalizer) for a while and its webhook refuses a new attachment of
    the same disk meanwhile: 403 `admission webhook "vmbda...." denied the request`."""
    csi.controller.CreateVolume(create("pvc-t"))
    csi.controller.ControllerPublishVolume(publish("pvc-t", node="worker-1"))
    dvp.hold(r.VMBDA, "vmbda-pvc-t-vm-worker-1")
    dvp.stop_vm("vm-worker-1")  # its node died: the driver detaches, DVP keeps it Terminating
    expect_code(C.ABORTED, csi.controller.ControllerPublishVolume, publish("pvc-t", node="worker-0"),
                "an earlier attachment is still terminating")
    dvp.release(r.VMBDA, "vmbda-pvc-t-vm-worker-1")
    dvp.wait(r.VMBDA, "vmbda-pvc-t-vm-worker-1", lambda a: a is None)
    csi.controller.ControllerPublishVolume(publish("pvc-t", node="worker-0"))

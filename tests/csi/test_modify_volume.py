# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ControllerModifyVolume (VolumeAttributesClass `dvpStorageClass`) on the real API with the DVP simulator: the
exact patch DVP gets, DVP's own refusal as INVALID_ARGUMENT with nothing changed, and CreateVolume honouring
mutable_parameters."""

from __future__ import annotations

import grpc
from dvp_common.dvp import resources as r
from dvp_csi.generated import csi_pb2

from testkit.csi.requests import create, expect_code, publish
from testkit.csi.sim import WFFC_CLASS

C = grpc.StatusCode


def modify(volume_id: str, **params: str) -> csi_pb2.ControllerModifyVolumeRequest:
    return csi_pb2.ControllerModifyVolumeRequest(volume_id=volume_id, mutable_parameters=params)


def test_modify_is_advertised(csi):
    caps = csi.controller.ControllerGetCapabilities(csi_pb2.ControllerGetCapabilitiesRequest()).capabilities
    assert csi_pb2.ControllerServiceCapability.RPC.MODIFY_VOLUME in [c.rpc.type for c in caps]


def test_a_disk_waiting_for_its_consumer_moves_to_the_new_class(csi, dvp):
    csi.controller.CreateVolume(create("pvc-late", sc=WFFC_CLASS))
    before = dvp.get(r.VIRTUAL_DISK, "pvc-late")
    csi.controller.ControllerModifyVolume(modify("pvc-late", dvpStorageClass="wffc"))
    after = dvp.get(r.VIRTUAL_DISK, "pvc-late")
    assert after["spec"] == {**before["spec"], "persistentVolumeClaim": {
        **before["spec"]["persistentVolumeClaim"], "storageClassName": "wffc"}}
    assert (after["status"]["storageClassName"], after["status"]["phase"]) == ("wffc", "WaitForFirstConsumer")
    assert after["metadata"]["uid"] == before["metadata"]["uid"]
    state = dvp.state()
    csi.controller.ControllerModifyVolume(modify("pvc-late", dvpStorageClass="wffc"))  # repeated: no write
    assert dvp.state() == state


def test_an_unknown_class_or_parameter_is_invalid_and_nothing_changes(csi, dvp):
    csi.controller.CreateVolume(create("pvc-1", sc=WFFC_CLASS))
    state = dvp.state()
    expect_code(C.INVALID_ARGUMENT, csi.controller.ControllerModifyVolume, modify("pvc-1", dvpStorageClass="gold"),
                "volume pvc-1: mutable_parameters.dvpStorageClass: DVP has no StorageClass 'gold'")
    expect_code(C.INVALID_ARGUMENT, csi.controller.ControllerModifyVolume, modify("pvc-1", iops="3000"),
                "volume pvc-1: mutable_parameters iops not supported (only dvpStorageClass)")
    expect_code(C.INVALID_ARGUMENT, csi.controller.ControllerModifyVolume, modify("pvc-1", dvpStorageClass=""),
                "must not be empty")
    expect_code(C.INVALID_ARGUMENT, csi.controller.ControllerModifyVolume, modify(""), "volume_id is required")
    expect_code(C.NOT_FOUND, csi.controller.ControllerModifyVolume, modify("pvc-none", dvpStorageClass="wffc"))
    assert dvp.state() == state


def test_dvp_refusing_to_migrate_a_hot_plugged_disk_is_invalid_and_nothing_changes(csi, dvp):
    csi.controller.CreateVolume(create("pvc-used", sc="fast"))
    csi.controller.ControllerPublishVolume(publish("pvc-used"))
    state = dvp.state()
    details = expect_code(C.INVALID_ARGUMENT, csi.controller.ControllerModifyVolume,
                          modify("pvc-used", dvpStorageClass="slow"))
    assert details.startswith("volume pvc-used: DVP cannot move VirtualDisk pvc-used to storage class slow:"), details
    assert "changing the storage class is not allowed if the virtual machine has hot-plugged block devices" in details
    assert dvp.state() == state


def test_a_provisioned_disk_no_vm_mounts_cannot_move(csi, dvp):
    csi.controller.CreateVolume(create("pvc-idle", sc="fast"))
    state = dvp.state()
    expect_code(C.INVALID_ARGUMENT, csi.controller.ControllerModifyVolume, modify("pvc-idle", dvpStorageClass="slow"),
                "storage class cannot be changed if the VirtualDisk not mounted to virtual machine")
    assert dvp.state() == state


def test_create_takes_the_class_of_the_volume_attributes_class(csi, dvp):
    req = create("pvc-vac", sc=WFFC_CLASS)
    req.mutable_parameters["dvpStorageClass"] = "wffc"
    csi.controller.CreateVolume(req)
    assert dvp.get(r.VIRTUAL_DISK, "pvc-vac")["spec"]["persistentVolumeClaim"]["storageClassName"] == "wffc"
    bad = create("pvc-bad", sc=WFFC_CLASS)
    bad.mutable_parameters["XXX_FakeKey"] = "x"
    state = dvp.state()
    expect_code(C.INVALID_ARGUMENT, csi.controller.CreateVolume, bad, "mutable_parameters XXX_FakeKey not supported")
    assert dvp.state() == state

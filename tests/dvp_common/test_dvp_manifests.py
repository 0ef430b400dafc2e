# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP manifest builders are pure: exact bodies, ownership labels that cannot be overridden, one API version."""

from __future__ import annotations

import pytest
from dvp_common.dvp import labels as L
from dvp_common.dvp import manifests as m
from dvp_common.dvp.resources import API_VERSION, VIRTUAL_MACHINE

UUID = "5c3f0a52-1111-4222-8333-444455556666"
VM = {"apiVersion": API_VERSION, "kind": "VirtualMachine", "metadata": {"name": "w-1", "uid": "vm-uid"}}
OWNED = {L.CLUSTER_UUID: UUID, L.COMPONENT: L.CAPDVP, L.MANAGED_BY: "deckhouse"}


def test_one_api_version():
    assert API_VERSION == "virtualization.deckhouse.io/v1alpha2" == VIRTUAL_MACHINE.api_version


def test_owner_reference_never_blocks_owner_deletion():
    assert m.owner_reference(VM) == {"apiVersion": API_VERSION, "kind": "VirtualMachine", "name": "w-1",
                                     "uid": "vm-uid", "controller": True, "blockOwnerDeletion": False}
    assert m.owner_reference(VM, controller=False)["controller"] is False


def test_ownership_labels_win_over_extra_ones():
    meta = m.metadata("d", UUID, L.CAPDVP, {L.CLUSTER_UUID: "other", L.COMPONENT: "csi", "team": "a"})
    assert meta == {"name": "d", "labels": {**OWNED, "team": "a"}}


def test_bodies():
    meta = m.metadata("w-1-boot", UUID, L.CAPDVP, owner=VM)
    assert m.virtual_disk(meta, "20Gi", "", m.image_source("ClusterVirtualImage", "ubuntu")) == {
        "apiVersion": API_VERSION, "kind": "VirtualDisk", "metadata": meta,
        "spec": {"persistentVolumeClaim": {"size": "20Gi"},
                 "dataSource": {"type": "ObjectRef", "objectRef": {"kind": "ClusterVirtualImage", "name": "ubuntu"}}}}
    assert m.cloud_init_secret(m.metadata("cloud-init-w-1", UUID, L.CAPDVP), b"#cloud-config\n") == {
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "cloud-init-w-1", "labels": OWNED},
        "type": "provisioning.virtualization.deckhouse.io/cloud-init", "immutable": True,
        "data": {"userData": "I2Nsb3VkLWNvbmZpZwo="}}
    assert m.attachment(m.metadata("a", UUID, L.CAPDVP), "w-1", "pvc-1")["spec"] == {
        "virtualMachineName": "w-1", "blockDeviceRef": {"kind": "VirtualDisk", "name": "pvc-1"}}
    assert m.ip_address(m.metadata("ip", UUID, L.CAPDVP))["spec"] == {"type": "Auto"}


def test_operations_are_named_per_request():
    assert m.operation_name("w-1", "Restart", 4) == "w-1-restart-g4"
    op = m.operation(m.metadata("w-1-stop-g4", UUID, L.CAPDVP, owner=VM), "w-1", "Stop", force=True)
    assert op["spec"] == {"type": "Stop", "virtualMachineName": "w-1", "force": True}
    with pytest.raises(ValueError, match='^VirtualMachineOperation "x": type \'Migrate\' is not one of Start, Stop, '
                                         'Restart$'):
        m.operation(m.metadata("x", UUID, L.CAPDVP), "w-1", "Migrate")

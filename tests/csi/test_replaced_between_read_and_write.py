# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A same-named object made between the driver's ownership read and its write is never touched.

The driver reads an object, judges it ours, then deletes or patches it. If the object is replaced in between (a
user deletes it and another cluster, or anyone, makes one of the same name), a write by name alone would hit the
replacement. Every write therefore carries the uid of the object read as a precondition. The race is made
deterministic with a hook on the driver's own client that runs right before its write request: the hook replaces
the object through an admin client, then the write goes out (real kube-apiserver, DVP simulator).
"""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube.faults import RequestInfo
from dvp_csi.domain import labels
from dvp_csi.generated import csi_pb2

from sim.builders import disk as disk_body
from sim.builders import phase_is
from sim.builders import vmbda as vmbda_body
from testkit.csi.env import CLUSTER, OTHER_CLUSTER
from testkit.csi.requests import GIB, cap, create, expect_code, publish, unpublish
from testkit.csi.sim import STORAGE_CLASS, SimEnv

C = grpc.StatusCode
# Who made the replacement: another cluster's CSI, or (as seen by labels alone) our own CSI: only the uid tells
# the second apart from the object the driver judged.
MAKERS = {"another cluster": {labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi"},
          "look-alike": {labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "csi", labels.MANAGED_BY: "deckhouse"}}


class BeforeWrite:
    """Fault hook: right before the driver's first `verb` request on `plural`/`name`, run `act` (no fault)."""

    def __init__(self, verb: str, plural: str, name: str, act: Callable[[], dict]) -> None:
        self.verb, self.plural, self.name, self.act = verb, plural, name, act
        self.replacement: dict | None = None
        self.seen: list[str] = []

    def __call__(self, req: RequestInfo):
        if req.name == self.name and req.resource.split(".")[0] == self.plural:
            self.seen.append(req.verb)
            if req.verb == self.verb and self.replacement is None:
                self.replacement = self.act()
        return None


def arm(env: SimEnv, hook: BeforeWrite) -> BeforeWrite:
    env.driver_client.transport.faults = hook
    return hook


def untouched(env: SimEnv, res, replacement: dict) -> dict:
    """The replacement is still there, the same object, not being deleted, its spec as its maker wrote it."""
    now = env.get(res, replacement["metadata"]["name"])
    assert now is not None
    assert now["metadata"]["uid"] == replacement["metadata"]["uid"]
    assert "deletionTimestamp" not in now["metadata"]
    assert now["spec"] == replacement["spec"]
    return now


def foreign_disk(name: str, maker: str, size: str = "1Gi") -> dict:
    body = disk_body(name, size, STORAGE_CLASS)
    body["metadata"]["labels"] = dict(MAKERS[maker])
    return body


@pytest.mark.parametrize("maker", MAKERS)
def test_delete_volume_never_deletes_a_same_named_replacement(csi, dvp, maker):
    csi.controller.CreateVolume(create("pvc-r", sc=STORAGE_CLASS))
    hook = arm(dvp, BeforeWrite("delete", "virtualdisks", "pvc-r",
                                lambda: dvp.replace(r.VIRTUAL_DISK, "pvc-r", foreign_disk("pvc-r", maker))))
    expect_code(C.ABORTED, csi.controller.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id="pvc-r"),
                "changed in DVP meanwhile, retry")
    assert hook.seen == ["get", "delete"]  # judged once, then the one guarded delete
    untouched(dvp, r.VIRTUAL_DISK, hook.replacement)
    if maker == "another cluster":  # the attacher's retry now sees the replacement for what it is
        expect_code(C.PERMISSION_DENIED, csi.controller.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id="pvc-r"))
        untouched(dvp, r.VIRTUAL_DISK, hook.replacement)


@pytest.mark.parametrize("maker", MAKERS)
def test_expand_volume_never_resizes_a_same_named_replacement(csi, dvp, maker):
    csi.controller.CreateVolume(create("pvc-e", sc=STORAGE_CLASS, required=GIB))
    hook = arm(dvp, BeforeWrite("patch", "virtualdisks", "pvc-e",
                                lambda: dvp.replace(r.VIRTUAL_DISK, "pvc-e", foreign_disk("pvc-e", maker))))
    req = csi_pb2.ControllerExpandVolumeRequest(volume_id="pvc-e", volume_capability=cap())
    req.capacity_range.required_bytes = 5 * GIB
    expect_code(C.ABORTED, csi.controller.ControllerExpandVolume, req, "changed in DVP meanwhile, retry")
    assert hook.seen == ["get", "patch"]
    now = untouched(dvp, r.VIRTUAL_DISK, hook.replacement)
    assert now["spec"]["persistentVolumeClaim"]["size"] == "1Gi"


@pytest.mark.parametrize("maker", MAKERS)
def test_delete_snapshot_never_deletes_a_same_named_replacement(csi, dvp, maker):
    csi.controller.CreateVolume(create("pvc-s", sc=STORAGE_CLASS))
    csi.controller.CreateSnapshot(csi_pb2.CreateSnapshotRequest(name="snap-r", source_volume_id="pvc-s"))
    dvp.wait(r.VIRTUAL_DISK_SNAPSHOT, "snap-r", phase_is("Ready"))
    body = {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualDiskSnapshot",
            "metadata": {"name": "snap-r", "labels": {**MAKERS[maker], "virtualDiskName": "pvc-s"}},
            "spec": {"virtualDiskName": "pvc-s", "requiredConsistency": False}}
    hook = arm(dvp, BeforeWrite("delete", "virtualdisksnapshots", "snap-r",
                                lambda: dvp.replace(r.VIRTUAL_DISK_SNAPSHOT, "snap-r", body)))
    expect_code(C.ABORTED, csi.controller.DeleteSnapshot, csi_pb2.DeleteSnapshotRequest(snapshot_id="snap-r"),
                "changed in DVP meanwhile, retry")
    assert hook.seen == ["get", "delete"]
    untouched(dvp, r.VIRTUAL_DISK_SNAPSHOT, hook.replacement)


def attachment_like(name: str, maker: str) -> dict:
    body = vmbda_body(name, "vm-worker-0", "pvc-u")
    body["metadata"]["labels"] = {**MAKERS[maker], "virtualMachineDiskName": "pvc-u",
                                  "virtualMachineName": "vm-worker-0", labels.HOSTNAME: "worker-0"}
    return body


@pytest.mark.parametrize("maker", MAKERS)
def test_unpublish_never_detaches_a_same_named_replacement(csi, dvp, maker):
    csi.controller.CreateVolume(create("pvc-u", sc=STORAGE_CLASS))
    csi.controller.ControllerPublishVolume(publish("pvc-u"))
    name = "vmbda-pvc-u-vm-worker-0"
    hook = arm(dvp, BeforeWrite("delete", "virtualmachineblockdeviceattachments", name,
                                lambda: dvp.replace(r.VMBDA, name, attachment_like(name, maker))))
    expect_code(C.ABORTED, csi.controller.ControllerUnpublishVolume, unpublish("pvc-u"),
                "changed in DVP meanwhile, retry")
    assert hook.seen == ["delete"]  # judged from the list of our attachments of the disk
    untouched(dvp, r.VMBDA, hook.replacement)


def test_the_dead_vm_pass_never_detaches_a_same_named_replacement(csi, dvp):
    csi.controller.CreateVolume(create("pvc-u", sc=STORAGE_CLASS))
    csi.controller.ControllerPublishVolume(publish("pvc-u"))
    name = "vmbda-pvc-u-vm-worker-0"
    dvp.delete_vm("vm-worker-0")  # the VM goes; its attachment stays for the driver to remove
    hook = arm(dvp, BeforeWrite("delete", "virtualmachineblockdeviceattachments", name,
                                lambda: dvp.replace(r.VMBDA, name, attachment_like(name, "look-alike"))))
    assert csi.driver.attachments.reap_dead_vms() == []
    assert hook.seen == ["delete"]
    untouched(dvp, r.VMBDA, hook.replacement)

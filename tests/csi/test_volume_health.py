# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Volume health and pending attachments: ControllerGetVolumeHealth/ControllerListVolumeHealth, and the
controller's periodic pass as metrics: a volume whose VirtualDisk DVP reports lost or failed, with DVP's reason; a
VMBDA DVP has not attached yet, with its age. The rules on their own (pure), then on the real DVP API with the
simulator."""

from __future__ import annotations

import datetime as dt

import grpc
import pytest
from dvp_common.dvp import resources as r
from dvp_csi import metrics
from dvp_csi.domain import labels
from dvp_csi.domain.health import Health, disk_health, health_entries
from dvp_csi.domain.pending import Pending, pending_attachments
from dvp_csi.generated import csi_pb2

from sim.builders import phase_is
from testkit.csi.env import CLUSTER
from testkit.csi.requests import create, expect_code
from testkit.csi.sim import MISSING_CLASS, STORAGE_CLASS

NOW = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
OURS = {labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "csi", labels.MANAGED_BY: "deckhouse"}


def sample(name, **labels_):
    return metrics.REGISTRY.get_sample_value(name, labels_ or None)


def series(name, **match):
    """The series of `name` whose labels include `match` (the registry is the process's: other tests' drivers
    leave theirs)."""
    return {tuple(sorted(s.labels.items())): s.value for m in metrics.REGISTRY.collect() for s in m.samples
            if s.name == name and match.items() <= s.labels.items()}


# -- the rules -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("status", "expected"), [
    ({"phase": "Ready"}, Health(False, "VirtualDisk d is Ready in DVP", "Ready", "")),
    ({}, Health(False, "VirtualDisk d is Pending in DVP", "Pending", "")),
    ({"phase": "Migrating"}, Health(False, "VirtualDisk d is Migrating in DVP", "Migrating", "")),
    ({"phase": "Failed", "conditions": [{"type": "Ready", "status": "False", "reason": "ProvisioningFailed",
                                         "message": "no space"}]},
     Health(True, "VirtualDisk d is Failed in DVP (ProvisioningFailed: no space)", "Failed", "ProvisioningFailed")),
    ({"phase": "Failed"}, Health(True, "VirtualDisk d is Failed in DVP", "Failed", "")),
    # DVP's Ready reason may say it before the phase does
    ({"phase": "Ready", "conditions": [{"type": "Ready", "status": "False", "reason": "PVCLost", "message": "m"}]},
     Health(True, "VirtualDisk d is Ready in DVP (PVCLost: m)", "Ready", "PVCLost")),
    # a Pending disk waiting for its class is not a faulty volume
    ({"phase": "Pending", "conditions": [{"type": "Ready", "status": "False", "reason": "StorageClassIsNotReady",
                                          "message": "m"}]},
     Health(False, "VirtualDisk d is Pending in DVP", "Pending", "StorageClassIsNotReady")),
])
def test_disk_health_rule(status, expected):
    assert disk_health({"metadata": {"name": "d"}, "status": status}) == expected


def vmbda(name, phase=None, made="2026-01-01T11:50:00Z", deleting=False):
    md = {"name": name, "creationTimestamp": made}
    if deleting:
        md["deletionTimestamp"] = "2026-01-01T11:59:00Z"
    return {"metadata": md, "spec": {"virtualMachineName": "vm-0", "blockDeviceRef": {"name": f"pvc-{name}"}},
            "status": {"phase": phase} if phase else {}}


def test_pending_attachments_are_the_unattached_ones_not_being_deleted_with_their_age():
    atts = [vmbda("a", "Attached"), vmbda("b", "Pending"), vmbda("c"), vmbda("d", "InProgress", deleting=True),
            vmbda("e", "InProgress", made="2026-01-01T12:00:30Z"), vmbda("f", "Failed", made=None)]
    assert pending_attachments(atts, NOW) == [
        Pending("b", "pvc-b", "vm-0", "Pending", 600.0), Pending("c", "pvc-c", "vm-0", "Pending", 600.0),
        Pending("e", "pvc-e", "vm-0", "InProgress", 0.0),  # a clock behind the API server's: never negative
        Pending("f", "pvc-f", "vm-0", "Failed", 0.0)]


# -- on the real API -----------------------------------------------------------------------------------------
def test_a_lost_disk_is_reported_abnormal_with_dvps_reason_until_it_is_gone(dvp, csi):
    for name in ("pvc-ok", "pvc-lost"):
        csi.controller.CreateVolume(create(name, sc=STORAGE_CLASS))
    csi.driver.reap_once()
    assert series("dvp_csi_volume_abnormal", volume="pvc-ok") == series("dvp_csi_volume_abnormal",
                                                                        volume="pvc-lost") == {}
    dvp.sim.lose_pvc(dvp.ns, "pvc-lost")
    dvp.wait(r.VIRTUAL_DISK, "pvc-lost", phase_is("PVCLost"))
    csi.driver.reap_once()
    assert series("dvp_csi_volume_abnormal", volume="pvc-lost") == {
        (("phase", "PVCLost"), ("reason", "PVCLost"), ("volume", "pvc-lost")): 1.0}
    assert series("dvp_csi_volume_abnormal", volume="pvc-ok") == {}
    csi.controller.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id="pvc-lost"))
    csi.driver.reap_once()
    assert series("dvp_csi_volume_abnormal", volume="pvc-lost") == {}


def test_an_attachment_dvp_does_not_attach_is_reported_pending_with_its_age(dvp, csi):
    # a disk whose class DVP does not have stays Pending; an attachment of it waits for the block device
    dvp.put_disk("pvc-stuck", {**OURS, labels.VIRTUAL_DISK_NAME: "pvc-stuck"}, "64Mi", MISSING_CLASS, settle=False)
    atts = csi.dvp.attachments
    atts.create(atts.new("pvc-stuck", "vm-worker-0", "worker-0"))
    dvp.wait(r.VMBDA, "vmbda-pvc-stuck-vm-worker-0", phase_is("Pending"))
    csi.driver.reap_once()
    assert sample("dvp_csi_attachments_pending") == 1
    (key, age), = series("dvp_csi_attachment_pending_seconds", volume="pvc-stuck").items()
    assert key == (("phase", "Pending"), ("vm", "vm-worker-0"), ("vmbda", "vmbda-pvc-stuck-vm-worker-0"),
                   ("volume", "pvc-stuck"))
    assert 0 <= age < 120
    atts.delete("vmbda-pvc-stuck-vm-worker-0")
    dvp.wait(r.VMBDA, "vmbda-pvc-stuck-vm-worker-0", lambda o: o is None)
    csi.driver.reap_once()
    assert sample("dvp_csi_attachments_pending") == 0
    assert series("dvp_csi_attachment_pending_seconds", volume="pvc-stuck") == {}


def health(resp) -> list[tuple[str, str, str]]:
    return [(csi_pb2.VolumeHealthErrorType.Name(e.status), e.reason, e.message) for e in resp.health_statuses]


def test_controller_volume_health_says_what_dvp_says(dvp, csi):
    for name in ("pvc-fine", "pvc-gone"):
        csi.controller.CreateVolume(create(name, sc=STORAGE_CLASS))
    pvc = dvp.get(r.VIRTUAL_DISK, "pvc-gone")["status"]["target"]["persistentVolumeClaimName"]
    get = csi.controller.ControllerGetVolumeHealth
    listed = csi.controller.ControllerListVolumeHealth
    assert listed(csi_pb2.ControllerListVolumeHealthRequest()).entries == []
    dvp.sim.lose_pvc(dvp.ns, "pvc-gone")
    dvp.wait(r.VIRTUAL_DISK, "pvc-gone", phase_is("PVCLost"))
    lost = [("DATA_LOSS", "PVCLost", f"VirtualDisk pvc-gone is PVCLost in DVP (PVCLost: PVC {pvc} not found)")]
    resp = get(csi_pb2.ControllerGetVolumeHealthRequest(volume_id="pvc-gone")).volume_health
    assert (resp.volume_id, health(resp)) == ("pvc-gone", lost)
    fine = get(csi_pb2.ControllerGetVolumeHealthRequest(volume_id="pvc-fine")).volume_health
    assert (fine.volume_id, health(fine)) == ("pvc-fine", [])
    entries = listed(csi_pb2.ControllerListVolumeHealthRequest()).entries  # abnormal volumes only
    assert [(e.volume_id, health(e)) for e in entries] == [("pvc-gone", lost)]
    token = "1"  # noqa: S105 (a page token)
    page = listed(csi_pb2.ControllerListVolumeHealthRequest(max_entries=1, starting_token=token))
    assert (list(page.entries), page.next_token) == ([], "")
    expect_code(grpc.StatusCode.NOT_FOUND, get, csi_pb2.ControllerGetVolumeHealthRequest(volume_id="pvc-none"))
    expect_code(grpc.StatusCode.INVALID_ARGUMENT, get, csi_pb2.ControllerGetVolumeHealthRequest())


@pytest.mark.parametrize(("status", "entries"), [
    ({"phase": "Ready"}, []),
    ({"phase": "PVCLost", "conditions": [{"type": "Ready", "status": "False", "reason": "PVCLost", "message": "m"}]},
     [("DATA_LOSS", "PVCLost", "VirtualDisk d is PVCLost in DVP (PVCLost: m)")]),
    ({"phase": "Failed", "conditions": [{"type": "Ready", "status": "False", "reason": "ProvisioningFailed",
                                         "message": "m"}]},
     [("INACCESSIBLE", "ProvisioningFailed", "VirtualDisk d is Failed in DVP (ProvisioningFailed: m)")]),
    ({"phase": "Failed"}, [("INACCESSIBLE", "Failed", "VirtualDisk d is Failed in DVP")]),
])
def test_health_entries_rule(status, entries):
    assert [tuple(e) for e in health_entries({"metadata": {"name": "d"}, "status": status})] == entries

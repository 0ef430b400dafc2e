# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Adoption with proof: a volume the upstream (Go) driver made works once a PersistentVolume of this guest cluster
names its disk; an upstream attachment of it to a node's VM is adopted too. Another cluster's same-named disk,
or one no PV of this cluster names, is refused exactly as before."""

from __future__ import annotations

import grpc
import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube.resources import NODE, PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM
from dvp_csi import DRIVER_NAME, metrics
from dvp_csi.access import Dvp
from dvp_csi.domain import labels
from dvp_csi.generated import csi_pb2

from sim.builders import phase_is
from sim.builders import vmbda as vmbda_body
from testkit.csi.env import CLUSTER, OTHER_CLUSTER
from testkit.csi.requests import cap, expect_code, publish, unpublish
from testkit.csi.sim import sim_env
from testkit.recorded import RecordedApi
from testkit.upstream.parent import csi_labels as upstream_labels
from testkit.upstream.parent import vmbda_labels

C = grpc.StatusCode
GIB = 1 << 30
OURS = {labels.CLUSTER_UUID: CLUSTER, labels.COMPONENT: "csi", labels.MANAGED_BY: "deckhouse"}


def pv(name: str, handle: str, driver: str = DRIVER_NAME, claim_uid: str | None = None) -> dict:
    """A PV as the external-provisioner leaves it; with `claim_uid`, bound to the claim `app/<name>` of that uid."""
    out = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
           "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                    "csi": {"driver": driver, "volumeHandle": handle, "fsType": "ext4"}}}
    if claim_uid is not None:
        out["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": "app", "name": name,
                                   "uid": claim_uid}
    return out


def claim(name: str, uid: str, volume: str) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "app", "uid": uid}, "spec": {"volumeName": volume}}


def put_bound(guest: RecordedApi, name: str, handle: str) -> None:
    """A PV bound to a live claim whose uid the provisioner put in the volume's name (`pvc-<uid>`)."""
    uid = handle.removeprefix("pvc-")
    guest.put(PERSISTENT_VOLUME, pv(name, handle, claim_uid=uid))
    guest.put(PERSISTENT_VOLUME_CLAIM, claim(name, uid, name), "app")


class Env:
    def __init__(self, sim, guest: RecordedApi, patches: list) -> None:
        self.sim, self.guest, self.patches = sim, guest, patches
        self.csi = sim.csi

    def pv(self, name: str, handle: str | None = None, driver: str = DRIVER_NAME, bound: bool = True) -> None:
        """A PV naming the disk `handle`; bound (the default) to a live claim whose uid is in the handle."""
        if bound and driver == DRIVER_NAME:
            put_bound(self.guest, name, handle or name)
        else:
            self.guest.put(PERSISTENT_VOLUME, pv(name, handle or name, driver))

    def patches_of(self, kind: str, name: str) -> list[dict]:
        return [body for k, n, body in self.patches if (k, n) == (kind, name)]


@pytest.fixture
def env(dvp_api, tmp_path):
    guest = RecordedApi()
    for node, vm in (("worker-0", "vm-worker-0"), ("worker-1", "vm-worker-1")):
        guest.put(NODE, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node},
                         "spec": {"providerID": f"dvp://{vm}"}})
    patches: list = []
    for sim in sim_env(dvp_api, tmp_path):
        sim.csi.dvp.guest = guest.client  # what driver.build does with the controller's guest API
        plain = sim.driver_client.patch

        def recorded(res, name, body, namespace=None, _plain=plain, **kw):
            patches.append((res.kind, name, body))
            return _plain(res, name, body, namespace, **kw)

        sim.driver_client.patch = recorded
        yield Env(sim, guest, patches)


def expand(volume_id: str, required: int) -> csi_pb2.ControllerExpandVolumeRequest:
    req = csi_pb2.ControllerExpandVolumeRequest(volume_id=volume_id, volume_capability=cap())
    req.capacity_range.required_bytes = required
    return req


def adoptions(kind: str) -> float:
    return metrics.REGISTRY.get_sample_value("dvp_csi_adoptions_total", {"kind": kind}) or 0


def test_an_upstream_volume_with_a_pv_of_this_cluster_works_on_every_path(env):
    sim, c = env.sim, env.csi.controller
    disk = sim.put_disk("pvc-up", upstream_labels("pvc-up", ""), "1Gi", "fast")
    env.pv("pvc-up")
    before = adoptions("VirtualDisk")

    resp = c.ControllerPublishVolume(publish("pvc-up"))
    assert resp.publish_context["serial"]
    adopted = sim.get(r.VIRTUAL_DISK, "pvc-up")
    assert adopted["metadata"]["labels"] == {**upstream_labels("pvc-up", ""), **OURS}
    # one patch, our labels only, guarded by the uid and the resourceVersion of the disk as judged
    [patch] = env.patches_of("VirtualDisk", "pvc-up")
    md = disk["metadata"]
    assert patch == {"metadata": {"uid": md["uid"], "resourceVersion": md["resourceVersion"], "labels": OURS}}
    assert adoptions("VirtualDisk") == before + 1
    assert [a["spec"]["blockDeviceRef"]["name"] for a in sim.items(r.VMBDA)] == ["pvc-up"]

    grown = c.ControllerExpandVolume(expand("pvc-up", 2 * GIB))
    assert grown.capacity_bytes == 2 * GIB
    snap = c.CreateSnapshot(csi_pb2.CreateSnapshotRequest(name="snap-up", source_volume_id="pvc-up"))
    assert snap.snapshot.source_volume_id == "pvc-up"
    listed = c.ListVolumes(csi_pb2.ListVolumesRequest())
    assert [e.volume.volume_id for e in listed.entries] == ["pvc-up"]
    c.ControllerUnpublishVolume(unpublish("pvc-up"))
    assert sim.items(r.VMBDA) == []
    c.DeleteSnapshot(csi_pb2.DeleteSnapshotRequest(snapshot_id=snap.snapshot.snapshot_id))
    c.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id="pvc-up"))
    assert sim.get(r.VIRTUAL_DISK, "pvc-up") is None
    # adopted once: every later call found it ours
    assert len(env.patches_of("VirtualDisk", "pvc-up")) == 2  # the adoption, then the resize
    assert adoptions("VirtualDisk") == before + 1


def test_delete_of_a_released_upstream_volume_of_our_uuid_adopts_and_deletes_it(env):
    env.sim.put_disk("pvc-rel", upstream_labels("pvc-rel", CLUSTER), "1Gi", "fast")
    env.pv("pvc-rel", bound=False)  # Released: its claim is gone; the disk's cluster UUID is ours
    env.csi.controller.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id="pvc-rel"))
    assert env.sim.get(r.VIRTUAL_DISK, "pvc-rel") is None


def test_a_volume_without_a_cluster_uuid_adopted_while_bound_is_deleted_once_released(env):
    env.sim.put_disk("pvc-old", upstream_labels("pvc-old", None), "1Gi", "fast")
    env.pv("pvc-old")
    assert [e.volume.volume_id for e in env.csi.controller.ListVolumes(csi_pb2.ListVolumesRequest()).entries] == [
        "pvc-old"]  # adopted while its claim lives
    env.guest.client.delete(PERSISTENT_VOLUME_CLAIM, "pvc-old", "app")
    env.csi.controller.DeleteVolume(csi_pb2.DeleteVolumeRequest(volume_id="pvc-old"))
    assert env.sim.get(r.VIRTUAL_DISK, "pvc-old") is None


@pytest.mark.parametrize("uuid", ["", None], ids=["empty-uuid", "no-uuid"])
def test_a_released_volume_without_a_cluster_uuid_never_adopted_is_refused(env, uuid):
    # nothing on the disk names a cluster and no live claim of this cluster does: a PV alone, which a guest user
    # could write, proves nothing (the admin's adopt label is the way for such a volume)
    env.sim.put_disk("pvc-rel", upstream_labels("pvc-rel", uuid), "1Gi", "fast")
    env.pv("pvc-rel", bound=False)
    refused_as_today(env, "pvc-rel")


def test_a_pv_naming_another_disk_than_its_claims_uid_proves_nothing(env):
    # the attacker's PV: bound to a live claim of theirs, but naming a disk whose name holds another uid
    env.sim.put_disk("pvc-victim", upstream_labels("pvc-victim", ""), "1Gi", "fast")
    env.guest.put(PERSISTENT_VOLUME, pv("pv-steal", "pvc-victim", claim_uid="mine"))
    env.guest.put(PERSISTENT_VOLUME_CLAIM, claim("pv-steal", "mine", "pv-steal"), "app")
    refused_as_today(env, "pvc-victim")


def test_list_volumes_adopts_the_disks_pvs_of_this_cluster_name(env):
    sim = env.sim
    sim.put_disk("pvc-l1", upstream_labels("pvc-l1", None), "1Gi", "fast")
    sim.put_disk("pvc-l2", upstream_labels("pvc-l2", ""), "1Gi", "fast")
    sim.put_disk("pvc-l3", upstream_labels("pvc-l3", OTHER_CLUSTER), "1Gi", "fast")
    env.pv("pv-a", "pvc-l1")
    env.pv("pv-c", "pvc-l3")  # a PV naming another cluster's disk proves nothing
    env.pv("pv-d", "pvc-l2", driver="other.csi.example.com")  # nor one of another driver
    listed = env.csi.controller.ListVolumes(csi_pb2.ListVolumesRequest())
    assert [e.volume.volume_id for e in listed.entries] == ["pvc-l1"]
    assert env.patches_of("VirtualDisk", "pvc-l2") == env.patches_of("VirtualDisk", "pvc-l3") == []


def test_an_upstream_attachment_is_adopted_found_and_detached(env):
    sim, c = env.sim, env.csi.controller
    sim.put_disk("pvc-ua", upstream_labels("pvc-ua", ""), "1Gi", "fast")
    env.pv("pvc-ua")
    # as the upstream driver attaches: named by the node's hostname, labelled by disk and hostname, no cluster UUID
    body = vmbda_body("vmbda-pvc-ua-worker-0", "vm-worker-0", "pvc-ua")
    body["metadata"]["labels"] = vmbda_labels("pvc-ua", "worker-0")
    sim.dvp.create(r.VMBDA, body, sim.ns)
    att = sim.wait(r.VMBDA, "vmbda-pvc-ua-worker-0", phase_is("Attached"))
    before = adoptions("VirtualMachineBlockDeviceAttachment")

    c.ControllerPublishVolume(publish("pvc-ua"))  # finds it: no second attachment (DVP would refuse one)
    [found] = sim.items(r.VMBDA)
    assert found["metadata"]["name"] == "vmbda-pvc-ua-worker-0"
    assert found["metadata"]["labels"] == {labels.VMBDA_DISK: "pvc-ua", labels.VMBDA_VM: "worker-0", **OURS}
    [patch] = env.patches_of("VirtualMachineBlockDeviceAttachment", "vmbda-pvc-ua-worker-0")
    assert patch["metadata"]["uid"] == att["metadata"]["uid"]
    assert patch["metadata"]["resourceVersion"] == att["metadata"]["resourceVersion"]
    assert adoptions("VirtualMachineBlockDeviceAttachment") == before + 1
    [entry] = c.ListVolumes(csi_pb2.ListVolumesRequest()).entries
    assert list(entry.status.published_node_ids) == ["worker-0"]  # the hostname upstream's label holds

    c.ControllerUnpublishVolume(unpublish("pvc-ua"))
    assert sim.items(r.VMBDA) == []


def test_unpublish_of_an_upstream_attachment_detaches_it(env):
    sim = env.sim
    sim.put_disk("pvc-ub", upstream_labels("pvc-ub", None), "1Gi", "fast")
    env.pv("pvc-ub")
    body = vmbda_body("vmbda-pvc-ub-worker-1", "vm-worker-1", "pvc-ub")
    body["metadata"]["labels"] = vmbda_labels("pvc-ub", "worker-1")
    sim.dvp.create(r.VMBDA, body, sim.ns)
    sim.wait(r.VMBDA, "vmbda-pvc-ub-worker-1", phase_is("Attached"))
    env.csi.controller.ControllerUnpublishVolume(unpublish("pvc-ub", node="worker-1"))
    assert sim.items(r.VMBDA) == []


def test_an_attachment_whose_node_names_another_vm_is_not_adopted(env):
    sim = env.sim
    sim.put_disk("pvc-uc", upstream_labels("pvc-uc", ""), "1Gi", "fast")
    env.pv("pvc-uc")
    env.guest.put(NODE, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker-1"},
                         "spec": {"providerID": "dvp://somebody-elses-vm"}})
    body = vmbda_body("vmbda-pvc-uc-worker-1", "vm-worker-1", "pvc-uc")
    body["metadata"]["labels"] = vmbda_labels("pvc-uc", "worker-1")
    sim.dvp.create(r.VMBDA, body, sim.ns)
    sim.wait(r.VMBDA, "vmbda-pvc-uc-worker-1", phase_is("Attached"))
    # not ours, so not detached: the volume stays attached there, as before adoption existed
    expect_code(C.UNAVAILABLE, env.csi.controller.ControllerUnpublishVolume, unpublish("pvc-uc", node="worker-1"))
    assert env.patches_of("VirtualMachineBlockDeviceAttachment", "vmbda-pvc-uc-worker-1") == []
    assert [a["metadata"]["name"] for a in sim.items(r.VMBDA)] == ["vmbda-pvc-uc-worker-1"]


def refused_as_today(env, victim: str) -> None:
    c = env.csi.controller
    before = env.sim.state()
    expect_code(C.NOT_FOUND, c.ControllerPublishVolume, publish(victim))
    expect_code(C.NOT_FOUND, c.ControllerUnpublishVolume, unpublish(victim))
    expect_code(C.PERMISSION_DENIED, c.DeleteVolume, csi_pb2.DeleteVolumeRequest(volume_id=victim))
    expect_code(C.NOT_FOUND, c.ControllerExpandVolume, expand(victim, 100 * GIB))
    expect_code(C.NOT_FOUND, c.CreateSnapshot,
                csi_pb2.CreateSnapshotRequest(name="snap-steal", source_volume_id=victim))
    assert list(c.ListVolumes(csi_pb2.ListVolumesRequest()).entries) == []
    assert env.sim.state() == before
    assert env.patches == []


def test_another_clusters_upstream_disk_is_refused_even_with_a_pv_naming_it(env):
    # the attacker's case: same project, same naming scheme, and a PV in this guest naming the disk
    env.sim.put_disk("pvc-theirs", upstream_labels("pvc-theirs", OTHER_CLUSTER), "1Gi", "fast")
    env.pv("pvc-theirs")
    refused_as_today(env, "pvc-theirs")


@pytest.mark.parametrize("uuid", ["", None, CLUSTER], ids=["empty-uuid", "no-uuid", "our-uuid"])
def test_an_upstream_disk_no_pv_of_this_cluster_names_is_refused(env, uuid):
    env.sim.put_disk("pvc-nopv", upstream_labels("pvc-nopv", uuid), "1Gi", "fast")
    env.pv("pvc-other", "pvc-something-else")
    refused_as_today(env, "pvc-nopv")


def test_a_disk_our_module_made_for_another_component_is_never_adopted(env):
    env.sim.put_disk("pvc-cap", {**upstream_labels("pvc-cap", CLUSTER), labels.COMPONENT: "capdvp"}, "1Gi", "fast")
    env.pv("pvc-cap")
    refused_as_today(env, "pvc-cap")


def test_a_disk_adopted_meanwhile_by_a_concurrent_call_is_ours_and_counted_once():
    dvp_api, guest = RecordedApi(namespaces=("proj",)), RecordedApi()
    put_bound(guest, "pvc-race", "pvc-race")
    body = {"apiVersion": r.API_VERSION, "kind": "VirtualDisk",
            "metadata": {"name": "pvc-race", "labels": upstream_labels("pvc-race", "")}, "spec": {}}
    read = dvp_api.put(r.VIRTUAL_DISK, body, "proj")
    access = Dvp.over(dvp_api.client, "proj", CLUSTER, guest=guest.client)
    # the other call's adoption lands between our read and our patch
    other = Dvp.over(dvp_api.client, "proj", CLUSTER, guest=guest.client)
    assert other.disks.is_ours(other.adopted_disk(dict(read)))
    got = access.adopted_disk(read)
    assert access.disks.is_ours(got) and got["metadata"]["uid"] == read["metadata"]["uid"]
    assert dvp_api.writes() == [("patch", "VirtualDisk", "pvc-race")] * 2  # ours answered 409, nothing changed

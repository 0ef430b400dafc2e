# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real external-attacher fills the serial into a VolumeAttachment the upstream (Go) driver attached.

Upstream's ControllerPublish returned an empty publish_context, so its VolumeAttachments are attached with no
attachmentMetadata, and our NodeStage refuses them (no serial, no device). The attacher's reconcile compares each
attached VolumeAttachment with ListVolumes' published nodes: our ListVolumes lists a node only for an attachment
that is ours, and upstream's is not adopted until a publish, so the attacher publishes that VolumeAttachment again;
ControllerPublish adopts upstream's attachment (none made twice) and answers the disk's serial, which the attacher
records. When an earlier publish adopted the attachment but its answer was never recorded, ListVolumes still
leaves the node out (the VolumeAttachment has no serial), so the same happens. Deleting the VolumeAttachment then
detaches through the adopted attachment.

The guest API runs no controller here (no attach-detach controller to race the hand-made VolumeAttachment); the
attacher is started with our chart's flags and a reconcile period of 1 s instead of a minute, so the bounded wait
stays short.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube import KubeClient
from dvp_common.kube.resources import CSI_NODE, NODE, PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM, VOLUME_ATTACHMENT
from dvp_csi import DRIVER_NAME
from dvp_csi.domain import labels
from dvp_csi.generated import csi_pb2
from dvp_csi.guest_proofs import GuestProofs
from test_adoption import OURS, upstream_labels

from sim import serial
from sim.builders import phase_is
from sim.builders import vmbda as vmbda_body
from testkit.csi import sidecars
from testkit.csi.requests import publish
from testkit.csi.sim import SimEnv, sim_env
from testkit.harness.guest_controllers import register_node
from testkit.harness.processes import Process, tool

HOST = "takeover-0"  # a node of this test alone: the guest API is shared with the worker's other tests
VM = "vm-takeover-0"
WAIT_S = 60.0
FINALIZER = "external-attacher/csi-dvp-deckhouse-io"  # the attacher's, on every VolumeAttachment it attached


@dataclass
class World:
    env: SimEnv
    guest: KubeClient
    ns: str
    attacher: Process | None = None

    def wait(self, res, name: str, predicate, ns: str | None = None):
        try:
            return self.guest.wait_for(res, name, predicate, WAIT_S, ns)
        except Exception as exc:
            tail = self.attacher.tail(20) if self.attacher else ""
            raise AssertionError(f"{exc}\n--- csi-attacher\n{tail}") from None


@pytest.fixture
def world(dvp_api, guest_api, tmp_path) -> Iterator[World]:
    tool("csi-attacher")  # a missing binary fails before anything starts: run `make tools`
    guest = guest_api.client()
    register_node(guest, HOST, csi_driver=DRIVER_NAME, wait=False)  # the Node and CSINode a kubelet writes
    guest.patch(NODE, HOST, {"spec": {"providerID": f"dvp://{VM}"}})  # as the CCM initialised it
    (tmp_path / "guest.kubeconfig").write_text(guest_api.kubeconfig())
    try:
        for env in sim_env(dvp_api, tmp_path, nodes={HOST: VM}):
            env.csi.dvp.guest = guest  # what driver.build does with the controller's guest API
            env.csi.dvp.proof_cache = GuestProofs(guest, watch_timeout=5)  # closed with the driver
            w = World(env, guest, guest_api.create_namespace("takeover"))
            try:
                yield w
            finally:
                if w.attacher is not None:
                    sidecars.stop([w.attacher])
    finally:
        guest.delete(CSI_NODE, HOST, missing_ok=True)
        guest.delete(NODE, HOST, missing_ok=True)
        guest.close()


def start_attacher(w: World, tmp_path) -> None:
    sock = w.env.csi.settings.endpoint.removeprefix("unix://")
    argv = [str(tool("csi-attacher")), *sidecars.flags("csi-attacher", tmp_path / "guest.kubeconfig", sock),
            "--reconcile-sync=1s"]
    w.attacher = Process("csi-attacher", argv, tmp_path / "csi-attacher.log")


def cached(w: World, name: str, predicate) -> None:
    """Until the driver's watch of VolumeAttachments holds `name` as `predicate` wants (woken by its events)."""
    inf = w.env.csi.dvp.proof_cache.attachments
    changed = threading.Condition()

    def poke(*_: object) -> None:
        with changed:
            changed.notify_all()

    inf.add_handlers(poke, poke, poke)
    inf.synced.wait(WAIT_S)
    with changed:
        assert changed.wait_for(lambda: inf.synced.is_set() and predicate(inf.get(name)), WAIT_S), \
            f"the driver's cache never held VolumeAttachment {name} as wanted"


def va_name(handle: str, node: str) -> str:
    """As kube-controller-manager and kubelet name it."""
    return "csi-" + hashlib.sha256(f"{handle}{DRIVER_NAME}{node}".encode()).hexdigest()


def metadata(va: dict | None) -> dict:
    return ((va or {}).get("status") or {}).get("attachmentMetadata") or {}


@pytest.mark.tools
@pytest.mark.parametrize("answer_lost", [False, True], ids=["upstream-attachment", "adopted-answer-lost"])
def test_the_real_attacher_records_the_serial_of_an_upstream_attachment_then_detaches_it(world, tmp_path,
                                                                                        answer_lost):
    w = world
    # the guest's claim and PV, as upstream's provisioner left them: the claim's uid is in the volume's name
    pvc = w.guest.create(PERSISTENT_VOLUME_CLAIM, {"metadata": {"name": "data"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "", "resources": {"requests": {"storage": "1Gi"}}}},
        w.ns)
    volume = f"pvc-{pvc['metadata']['uid']}"
    w.guest.create(PERSISTENT_VOLUME, {"metadata": {"name": volume}, "spec": {
        "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": "", "csi": {"driver": DRIVER_NAME, "volumeHandle": volume, "fsType": "ext4"},
        "claimRef": {"kind": "PersistentVolumeClaim", "namespace": w.ns, "name": "data",
                     "uid": pvc["metadata"]["uid"]}}})
    w.guest.patch(PERSISTENT_VOLUME_CLAIM, "data", {"spec": {"volumeName": volume}}, w.ns)
    # in DVP: upstream's disk (no cluster UUID) and its attachment to the node's VM
    disk = w.env.put_disk(volume, upstream_labels(volume, ""), "1Gi")
    upstream_vmbda = f"vmbda-{volume}-{HOST}"
    body = vmbda_body(upstream_vmbda, VM, volume)
    body["metadata"]["labels"] = {labels.VMBDA_DISK: volume, labels.VMBDA_VM: HOST}
    w.env.dvp.create(r.VMBDA, body, w.env.ns)
    w.env.wait(r.VMBDA, upstream_vmbda, phase_is("Attached"))
    # and the VolumeAttachment upstream's attacher marked attached, with nothing in attachmentMetadata
    name = va_name(volume, HOST)
    w.guest.create(VOLUME_ATTACHMENT, {"metadata": {"name": name, "finalizers": [FINALIZER]}, "spec": {
        "attacher": DRIVER_NAME, "nodeName": HOST, "source": {"persistentVolumeName": volume}}})
    w.guest.patch(VOLUME_ATTACHMENT, name, {"status": {"attached": True}}, subresource="status")

    if answer_lost:  # a publish adopted upstream's attachment, and the attacher never recorded its answer
        w.env.csi.controller.ControllerPublishVolume(publish(volume, node=HOST))
        assert w.env.get(r.VMBDA, upstream_vmbda)["metadata"]["labels"][labels.COMPONENT] == "csi"
        cached(w, name, lambda v: v is not None and not metadata(v))
        assert list(w.env.csi.controller.ListVolumes(csi_pb2.ListVolumesRequest()).entries[0]
                    .status.published_node_ids) == []

    start_attacher(w, tmp_path)
    va = w.wait(VOLUME_ATTACHMENT, name, lambda v: metadata(v))
    cached(w, name, lambda v: bool(metadata(v)))
    assert metadata(va) == {"serial": serial(disk["metadata"]["uid"])}  # the serial DVP gave the device
    assert va["status"]["attached"] is True
    [att] = w.env.items(r.VMBDA)  # upstream's, adopted: none made twice
    assert att["metadata"]["name"] == upstream_vmbda
    assert att["metadata"]["labels"] == {labels.VMBDA_DISK: volume, labels.VMBDA_VM: HOST, **OURS}
    [entry] = w.env.csi.controller.ListVolumes(csi_pb2.ListVolumesRequest()).entries
    assert (entry.volume.volume_id, list(entry.status.published_node_ids)) == (volume, [HOST])

    # the pod leaves the node: the attacher detaches through the adopted attachment
    w.guest.delete(VOLUME_ATTACHMENT, name)
    w.wait(VOLUME_ATTACHMENT, name, lambda v: v is None)
    assert w.env.items(r.VMBDA) == []
    w.guest.delete(PERSISTENT_VOLUME, volume)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The proofs of adoption come from watches of the guest's PersistentVolumes and claims: once they listed, an
upstream disk is adopted without a list per call, and the proof rule stays the same (a PV alone proves nothing
for a disk without a cluster UUID, whether cached or read live). The watch of VolumeAttachments keeps a node
whose VolumeAttachment has no serial out of ListVolumes' published nodes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube.resources import PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM, VOLUME_ATTACHMENT
from dvp_csi import DRIVER_NAME
from dvp_csi.access import Dvp
from dvp_csi.domain import names
from dvp_csi.guest_proofs import GuestProofs
from dvp_csi.volumes import Volumes
from test_adoption import claim, put_bound, pv, upstream_labels

from testkit.csi.env import CLUSTER, make_settings
from testkit.recorded import RecordedApi

SYNC_S = 10.0


class World:
    def __init__(self) -> None:
        self.dvp, self.guest = RecordedApi(namespaces=("proj",)), RecordedApi()
        self.access = Dvp.over(self.dvp.client, "proj", CLUSTER, guest=self.guest.client)
        self.cache = GuestProofs(self.guest.client, watch_timeout=1)
        self.access.proof_cache = self.cache

    def disk(self, name: str) -> dict:
        body = {"apiVersion": r.API_VERSION, "kind": "VirtualDisk",
                "metadata": {"name": name, "labels": upstream_labels(name, "")}, "spec": {}}
        return self.dvp.put(r.VIRTUAL_DISK, body, "proj")

    def guest_lists(self) -> list[tuple[str, ...]]:
        return [c for c in self.guest.calls if c[0] == "list"]

    def synced(self) -> None:
        assert self.cache.pvs.synced.wait(SYNC_S) and self.cache.claims.synced.wait(SYNC_S), "informers never listed"


@pytest.fixture
def world() -> Iterator[World]:
    w = World()
    try:
        yield w
    finally:
        w.cache.close()


def test_once_the_watches_listed_disks_are_adopted_without_a_list_per_call(world):
    w = world
    names = [f"pvc-{i:04d}" for i in range(5)]
    disks = [w.disk(n) for n in names]
    for n in names:
        put_bound(w.guest, n, n)
    # the first call starts the watches and, as they have not listed yet, reads the guest once itself
    assert w.access.disks.is_ours(w.access.adopted_disk(disks[0]))
    w.synced()
    before = w.guest_lists()
    for d in disks[1:]:
        assert w.access.disks.is_ours(w.access.adopted_disk(d))
    assert w.guest_lists() == before  # answered by the cache
    assert [c for c in w.dvp.writes() if c[0] == "patch"] == [("patch", "VirtualDisk", n) for n in names]


def test_a_pass_over_many_candidates_reads_nothing_once_cached(world):
    w = world
    names = [f"pvc-l{i}" for i in range(4)]
    for n in names:
        w.disk(n)
        put_bound(w.guest, n, n)
    w.cache.cached([])  # started, as by an earlier call
    w.synced()
    before = w.guest_lists()
    assert sorted(d["metadata"]["name"] for d in w.access.adopted_volumes()) == names
    assert w.guest_lists() == before


def test_a_pv_alone_proves_nothing_from_the_cache_either(world):
    w = world
    # the attacker's PV: bound to a live claim of theirs whose uid is not in the disk's name
    victim = w.disk("pvc-victim")
    w.guest.put(PERSISTENT_VOLUME, pv("pv-steal", "pvc-victim", claim_uid="mine"))
    w.guest.put(PERSISTENT_VOLUME_CLAIM, claim("pv-steal", "mine", "pv-steal"), "app")
    w.cache.cached([])
    w.synced()
    assert w.cache.cached(["pvc-victim"])["pvc-victim"].strong is False
    before = len(w.guest_lists())
    assert not w.access.disks.is_ours(w.access.adopted_disk(victim))
    # nothing adoptable cached: read live once (the cache may lag), which proves no more
    assert [c[1] for c in w.guest_lists()[before:]] == ["PersistentVolumeClaim", "PersistentVolume"]
    assert w.dvp.writes() == []


def test_a_claim_made_after_the_cache_listed_is_found_by_the_live_read(world):
    w = world
    w.cache.cached([])
    w.synced()
    # made now: the watch may not have told the cache yet; the live read sees it, so the call does not fail
    disk = w.disk("pvc-late")
    put_bound(w.guest, "pvc-late", "pvc-late")
    assert w.access.disks.is_ours(w.access.adopted_disk(disk))


def test_a_node_whose_volume_attachment_has_no_serial_is_not_listed_as_published(world, tmp_path):
    # upstream's VolumeAttachment (attached, no attachmentMetadata): left out, the attacher publishes it again
    w = world
    for node, vm in (("worker-0", "vm-0"), ("worker-1", "vm-1")):
        w.access.attachments.create(w.access.attachments.new("pvc-p", vm, node))
    recorded = {"serial": "0" * 32}
    for node, meta in (("worker-0", None), ("worker-1", recorded)):
        name = names.volume_attachment_name("pvc-p", DRIVER_NAME, node)
        w.guest.put(VOLUME_ATTACHMENT, {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
                                        "metadata": {"name": name}, "spec": {
                                            "attacher": DRIVER_NAME, "nodeName": node,
                                            "source": {"persistentVolumeName": "pvc-p"}}})
        w.guest.set_status(VOLUME_ATTACHMENT, name, None, {"attached": True, **(
            {"attachmentMetadata": meta} if meta else {})})
    w.cache.cached([])
    assert w.cache.attachments.synced.wait(SYNC_S)
    volumes = Volumes(w.access, make_settings(tmp_path))
    disk = {"metadata": {"name": "pvc-p"}}
    assert volumes.published_nodes(disk) == ["worker-1"]
    # without the watch (no guest API) every attachment of ours counts, as before
    w.access.proof_cache = None
    assert volumes.published_nodes(disk) == ["worker-0", "worker-1"]

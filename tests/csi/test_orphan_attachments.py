# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Orphan attachments: VMBDAs of this cluster that no guest VolumeAttachment wants are deleted after two
observations a grace period apart; never another cluster's, never while a VolumeAttachment names the volume.
The rule on its own (pure), then on the real DVP API with the simulator and a real guest API."""

from __future__ import annotations

import dataclasses
import secrets
import threading

import pytest
from dvp_common.dvp import resources as r
from dvp_common.kube.resources import PERSISTENT_VOLUME, VOLUME_ATTACHMENT
from dvp_csi import DRIVER_NAME, driver, metrics
from dvp_csi.access import Dvp
from dvp_csi.domain import labels
from dvp_csi.domain.orphans import judge, wanted_volumes
from dvp_csi.orphans import OrphanCollector
from dvp_csi.settings import ConfigInvalid, parse

from testkit.csi.env import CLUSTER, OTHER_CLUSTER
from testkit.csi.requests import create, publish
from testkit.csi.sim import STORAGE_CLASS, sim_env

GRACE = 300.0


def vmbda(name, disk, uid=None, cluster=CLUSTER, component="csi", deleting=False):
    md = {"name": name, "uid": uid or f"u-{name}",
          "labels": {labels.CLUSTER_UUID: cluster, labels.COMPONENT: component}}
    if deleting:
        md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": md, "spec": {"virtualMachineName": "vm-0", "blockDeviceRef": {"kind": "VirtualDisk",
                                                                                        "name": disk}}}


def va(name, pv=None, inline=None):
    source = {"persistentVolumeName": pv} if pv else {"inlineVolumeSpec": {"csi": {"driver": DRIVER_NAME,
                                                                                   "volumeHandle": inline}}}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": name},
            "spec": {"attacher": DRIVER_NAME, "nodeName": "worker-0", "source": source}}


def pv(name, handle):
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "csi": {"driver": DRIVER_NAME, "volumeHandle": handle}}}


def names(objs):
    return sorted(o["metadata"]["name"] for o in objs)


# -- the rule ------------------------------------------------------------------------------------------------
def test_wanted_volumes_are_named_by_pv_name_volume_handle_or_inline_handle():
    wanted = wanted_volumes([va("a", pv="pv-1"), va("b", pv="pvc-2"), va("c", inline="pvc-3")],
                            [pv("pv-1", "pvc-1"), pv("pv-unused", "pvc-9")])
    assert wanted == {"pv-1", "pvc-1", "pvc-2", "pvc-3"}


def test_only_a_second_observation_a_grace_period_later_collects():
    atts = [vmbda("orphan", "pvc-o"), vmbda("wanted", "pvc-w")]
    first = judge(atts, frozenset({"pvc-w"}), {}, 100.0, GRACE, CLUSTER)
    assert (first.seen, first.collect, names(first.pending)) == ({"u-orphan": 100.0}, [], ["orphan"])
    early = judge(atts, frozenset({"pvc-w"}), first.seen, 399.0, GRACE, CLUSTER)
    assert (early.seen, early.collect) == ({"u-orphan": 100.0}, [])
    due = judge(atts, frozenset({"pvc-w"}), early.seen, 400.0, GRACE, CLUSTER)
    assert (names(due.collect), due.pending, due.seen) == (["orphan"], [], {"u-orphan": 100.0})


def test_wanted_again_or_replaced_starts_the_grace_period_anew():
    seen = {"u-orphan": 0.0}
    again = judge([vmbda("orphan", "pvc-o")], frozenset({"pvc-o"}), seen, 1000.0, GRACE, CLUSTER)
    assert (again.seen, again.collect, again.pending) == ({}, [], [])
    replaced = judge([vmbda("orphan", "pvc-o", uid="u-new")], frozenset(), seen, 1000.0, GRACE, CLUSTER)
    assert (replaced.seen, replaced.collect) == ({"u-new": 1000.0}, [])


@pytest.mark.parametrize("att", [
    vmbda("theirs", "pvc-t", cluster=OTHER_CLUSTER),
    vmbda("capdvp", "pvc-c", component="capdvp"),
    vmbda("going", "pvc-g", deleting=True),
])
def test_foreign_or_terminating_attachments_are_never_judged(att):
    verdict = judge([att], frozenset(), {att["metadata"]["uid"]: 0.0}, 1000.0, GRACE, CLUSTER)
    assert verdict == ({}, [], [])


# -- on the real APIs ----------------------------------------------------------------------------------------
def test_collector_on_the_real_api_keeps_wanted_and_foreign_attachments(dvp, guest_api):
    tag = secrets.token_hex(3)
    orphan, kept, back, theirs = (f"pvc-{k}-{tag}" for k in ("orphan", "kept", "back", "theirs"))
    c = dvp.csi.controller
    for volume in (orphan, kept, back):
        c.CreateVolume(create(volume, sc=STORAGE_CLASS))
        c.ControllerPublishVolume(publish(volume))
    # another cluster's attachment in the same project, of its own disk to its own VM: never ours to judge
    dvp.add_vm("vm-other", "other-0", cluster_uuid=OTHER_CLUSTER)
    dvp.put_disk(theirs, {labels.CLUSTER_UUID: OTHER_CLUSTER, labels.COMPONENT: "csi"}, "64Mi", STORAGE_CLASS)
    other = Dvp.over(dvp.dvp, dvp.ns, OTHER_CLUSTER).attachments
    other.create(other.new(theirs, "vm-other", "other-0"))
    every = sorted([f"vmbda-{v}-vm-worker-0" for v in (orphan, kept, back)] + [f"vmbda-{theirs}-vm-other"])
    assert dvp.names(r.VMBDA) == every

    guest = guest_api.client()
    made = [(PERSISTENT_VOLUME, guest.create(PERSISTENT_VOLUME, pv(f"pv-{tag}", kept))),
            (VOLUME_ATTACHMENT, guest.create(VOLUME_ATTACHMENT, va(f"va-kept-{tag}", pv=f"pv-{tag}")))]
    now = [0.0]
    locks = dvp.csi.driver.controller.locks
    collector = OrphanCollector(dvp.csi.dvp, guest, locks, GRACE, clock=lambda: now[0])
    try:
        assert collector.collect() == []  # first observation
        assert names(collector.pending) == sorted([f"vmbda-{orphan}-vm-worker-0", f"vmbda-{back}-vm-worker-0"])
        # the VolumeAttachment of `back` is recreated during the grace period: its VMBDA is wanted again
        made.append((VOLUME_ATTACHMENT, guest.create(VOLUME_ATTACHMENT, va(f"va-back-{tag}", pv=back))))
        now[0] = GRACE - 1
        assert collector.collect() == []
        now[0] = GRACE
        with locks.hold(f"volume/{orphan}"):  # a Publish/Unpublish of the volume in flight: it decides
            assert collector.collect() == []
        assert collector.collect() == [f"vmbda-{orphan}-vm-worker-0"]
        dvp.wait(r.VMBDA, f"vmbda-{orphan}-vm-worker-0", lambda o: o is None)
        assert dvp.names(r.VMBDA) == [n for n in every if orphan not in n]
        now[0] = 10 * GRACE
        assert collector.collect() == [] and collector.pending == []
    finally:
        for res, obj in reversed(made):
            guest.delete(res, obj["metadata"]["name"], missing_ok=True)
        guest.close()


def test_a_volume_attachment_made_after_the_first_read_keeps_its_attachment(dvp, guest_api):
    """The collector reads the VolumeAttachments once more under the volume's lock, right before the delete."""
    tag = secrets.token_hex(3)
    volume = f"pvc-late-{tag}"
    dvp.csi.controller.CreateVolume(create(volume, sc=STORAGE_CLASS))
    dvp.csi.controller.ControllerPublishVolume(publish(volume))
    guest = guest_api.client()
    now, reads = [0.0], []

    class LateGuest:
        """The real guest API; the attach/detach controller makes a VolumeAttachment right after the first
        VolumeAttachment read of the deciding pass."""

        def list_all(self, res, *args, **kwargs):
            got = guest.list_all(res, *args, **kwargs)
            if res is VOLUME_ATTACHMENT and now[0] >= GRACE:
                reads.append(len(got.items))
                if len(reads) == 1:
                    guest.create(VOLUME_ATTACHMENT, va(f"va-late-{tag}", pv=volume))
            return got

    collector = OrphanCollector(dvp.csi.dvp, LateGuest(), dvp.csi.driver.controller.locks, GRACE,
                                clock=lambda: now[0])
    try:
        assert collector.collect() == []
        now[0] = GRACE
        assert collector.collect() == []
        assert len(reads) == 2  # judged on the first read, kept on the second
        assert dvp.names(r.VMBDA) == [f"vmbda-{volume}-vm-worker-0"]
        assert collector.seen == {}  # wanted: a later orphan starts its grace period anew
    finally:
        guest.delete(VOLUME_ATTACHMENT, f"va-late-{tag}", missing_ok=True)
        guest.close()


def test_the_driver_runs_the_pass_beside_the_dead_vm_reaper_and_counts(dvp_api, guest_api, tmp_path):
    guest = guest_api.client()
    try:
        for env in sim_env(dvp_api, tmp_path, nodes={"a": "vm-a"}, dead_vm_reap_interval=0.05,
                           orphan_attachment_grace=0.2):
            d = driver.build(env.csi.settings, env.csi.dvp, guest=guest)
            assert driver.build(dataclasses.replace(env.csi.settings, orphan_attachment_grace=0),
                                env.csi.dvp, guest=guest).orphans is None
            assert driver.build(env.csi.settings, env.csi.dvp).orphans is None  # no guest API: no such pass
            volume = f"pvc-bg-{secrets.token_hex(3)}"
            env.csi.controller.CreateVolume(create(volume, sc=STORAGE_CLASS))
            env.csi.controller.ControllerPublishVolume(publish(volume, node="a"))
            before = metrics.REGISTRY.get_sample_value("dvp_csi_orphan_attachment_detaches_total") or 0
            stop = threading.Event()
            thread = d.start_reaper(stop)
            try:
                env.wait(r.VMBDA, f"vmbda-{volume}-vm-a", lambda a: a is None)
            finally:
                stop.set()
                thread.join(5)
            assert metrics.REGISTRY.get_sample_value("dvp_csi_orphan_attachment_detaches_total") == before + 1
            assert metrics.REGISTRY.get_sample_value("dvp_csi_orphan_attachments_pending") == 0
    finally:
        guest.close()


def test_grace_setting():
    env = {"DVP_NAMESPACE": "p", "CLUSTER_UUID": "u"}
    assert parse(["--mode", "controller"], env).orphan_attachment_grace == 300
    assert parse(["--mode", "controller", "--orphan-attachment-grace", "0"], env).orphan_attachment_grace == 0
    with pytest.raises(ConfigInvalid, match="orphan-attachment-grace"):
        parse(["--mode", "controller", "--orphan-attachment-grace", "-1"], env)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Adoption with proof (dvp_common.dvp.adoption): the rule over every case, and Objects.adopt, the one write."""

from __future__ import annotations

import pytest
from dvp_common.dvp import DVPConnection, NotOurs, VirtualDisks
from dvp_common.dvp import labels as L
from dvp_common.dvp import resources as r
from dvp_common.dvp.adoption import Proof, Verdict, decide
from dvp_common.kube import Conflict

from testkit.recorded import RecordedApi
from testkit.upstream import parent as upstream_parent

UUID = "5c3f0a52-1111-4222-8333-444455556666"
OTHER = "0b8e7c11-9999-4aaa-8bbb-ccccdddd0000"
NS = "proj"
PV = Proof("PersistentVolume", "pvc-1", "volumeHandle")
BOUND = Proof("PersistentVolume", "pvc-1", "volumeHandle; bound to PersistentVolumeClaim app/data, uid 1", strong=True)
SCHEME = upstream_parent.csi_labels("pvc-1", None)  # as the upstream driver labels its disk, UUID aside


def disk(**labels: str) -> dict:
    return {"metadata": {"name": "pvc-1", "uid": "u-1", "resourceVersion": "7", "labels": labels}}


def upstream(uuid: str | None = None) -> dict:
    extra = {L.CLUSTER_UUID: uuid} if uuid is not None else {}
    return disk(**SCHEME, **extra)


OURS_LABELS = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: UUID, L.COMPONENT: L.CSI}


@pytest.mark.parametrize(("obj", "proof", "verdict"), [
    pytest.param(disk(**OURS_LABELS), None, Verdict.OURS, id="ours-already"),
    pytest.param(disk(**OURS_LABELS), PV, Verdict.OURS, id="ours-already-with-proof"),
    pytest.param(upstream(UUID), PV, Verdict.ADOPT, id="upstream-our-uuid-proven"),
    pytest.param(upstream(""), BOUND, Verdict.ADOPT, id="upstream-empty-uuid-proven-by-a-bound-claim"),
    pytest.param(upstream(None), BOUND, Verdict.ADOPT, id="upstream-no-uuid-proven-by-a-bound-claim"),
    pytest.param(upstream(UUID), BOUND, Verdict.ADOPT, id="upstream-our-uuid-proven-by-a-bound-claim"),
    # nothing on the disk names a cluster: a PV alone, which a guest user could write, proves nothing
    pytest.param(upstream(""), PV, Verdict.FOREIGN, id="attacker-empty-uuid-a-pv-alone"),
    pytest.param(upstream(None), PV, Verdict.FOREIGN, id="attacker-no-uuid-a-pv-alone"),
    pytest.param(upstream(UUID), None, Verdict.FOREIGN, id="upstream-our-uuid-no-proof"),
    # the attacker: another cluster's upstream-made disk in the same project, same naming scheme
    pytest.param(upstream(OTHER), PV, Verdict.FOREIGN, id="attacker-other-uuid-with-proof"),
    pytest.param(upstream(OTHER), BOUND, Verdict.FOREIGN, id="attacker-other-uuid-with-a-strong-proof"),
    pytest.param(upstream(OTHER), None, Verdict.FOREIGN, id="attacker-other-uuid"),
    pytest.param(upstream(""), None, Verdict.FOREIGN, id="attacker-empty-uuid-no-proof"),
    pytest.param(upstream(None), None, Verdict.FOREIGN, id="attacker-no-uuid-no-proof"),
    # anything our module made is never adopted
    pytest.param(disk(**{**OURS_LABELS, L.COMPONENT: L.CAPDVP}), PV, Verdict.FOREIGN, id="our-capdvp-disk"),
    pytest.param(disk(**{**OURS_LABELS, L.CLUSTER_UUID: OTHER}), PV, Verdict.FOREIGN, id="other-cluster-csi"),
    pytest.param(disk(**{**SCHEME, L.COMPONENT: ""}), PV, Verdict.FOREIGN, id="empty-component-label"),
    pytest.param(disk(**{**SCHEME, L.COMPONENT: L.CSI}), PV, Verdict.FOREIGN, id="csi-without-uuid"),
    # not the scheme that makes it
    pytest.param(disk(**{L.MANAGED_BY: L.MANAGED_BY_VALUE}), PV, Verdict.FOREIGN, id="no-virtualDiskName"),
    pytest.param(disk(**{**SCHEME, L.VIRTUAL_DISK_NAME: "pvc-2"}), PV, Verdict.FOREIGN, id="other-virtualDiskName"),
    pytest.param(disk(**{L.VIRTUAL_DISK_NAME: "pvc-1"}), PV, Verdict.FOREIGN, id="no-managed-by"),
    pytest.param(None, PV, Verdict.FOREIGN, id="absent"),
])
def test_the_rule(obj, proof, verdict):
    d = decide(obj, UUID, L.CSI, proof, SCHEME)
    assert d.verdict is verdict, d.reason
    assert "\n" not in d.reason and d.reason
    assert d.ours == (verdict is not Verdict.FOREIGN)
    if verdict is Verdict.ADOPT:
        assert d.proof == proof and str(proof) in d.reason
        assert d.patch == {"metadata": {"uid": "u-1", "resourceVersion": "7", "labels": OURS_LABELS}}
    else:
        assert d.patch is None
    # only the want of a (strong enough) proof makes a foreign object worth a look for one
    assert d.provable == (verdict is Verdict.FOREIGN and obj is not None and (proof is None or not proof.strong)
                          and decide(obj, UUID, L.CSI, BOUND, SCHEME).verdict is Verdict.ADOPT)


def test_proof_reads_as_one_line():
    assert str(PV) == "PersistentVolume pvc-1 of this cluster (volumeHandle)"
    assert decide(upstream(None), UUID, L.CSI, PV, SCHEME).reason == (
        "dvp.deckhouse.io/cluster-uuid empty or absent and PersistentVolume pvc-1 of this cluster (volumeHandle) is "
        "a proof a guest user could forge")


def test_no_uid_to_guard_with_is_never_adopted():
    obj = upstream(UUID)
    del obj["metadata"]["uid"]
    assert decide(obj, UUID, L.CSI, PV, SCHEME).verdict is Verdict.FOREIGN


def test_an_empty_cluster_uuid_judges_nothing():
    with pytest.raises(ValueError):
        decide(upstream(""), "", L.CSI, PV, SCHEME)


# -- Objects.adopt: the guarded write ---------------------------------------------------------------------------
@pytest.fixture
def api():
    return RecordedApi(namespaces=(NS,))


def put_disk(api, labels):
    body = {"apiVersion": r.API_VERSION, "kind": "VirtualDisk",
            "metadata": {"name": "pvc-1", "namespace": NS, "labels": labels}, "spec": {}}
    return api.put(r.VIRTUAL_DISK, body, NS)


def disks(api):
    return VirtualDisks(DVPConnection(api.client, NS, UUID), L.CSI)


def test_adopt_patches_our_labels_once_under_uid_and_resource_version(api, caplog):
    current = put_disk(api, dict(SCHEME))
    vds = disks(api)
    caplog.set_level("INFO")
    out = vds.adopt(current, BOUND, SCHEME)
    assert api.writes() == [("patch", "VirtualDisk", "pvc-1")]
    assert out["metadata"]["labels"] == {**SCHEME, **OURS_LABELS}
    assert vds.is_ours(out)
    assert [m for m in caplog.messages if "adopted" in m] == [
        "adopted VirtualDisk pvc-1: named by PersistentVolume pvc-1 of this cluster (volumeHandle; bound to "
        "PersistentVolumeClaim app/data, uid 1)"]
    again = vds.adopt(out, BOUND, SCHEME)  # idempotent: ours already, no write
    assert again == out and api.writes() == [("patch", "VirtualDisk", "pvc-1")]


def test_adopt_refuses_a_foreign_disk_without_writing(api):
    current = put_disk(api, {**SCHEME, L.CLUSTER_UUID: OTHER})
    with pytest.raises(NotOurs):
        disks(api).adopt(current, PV, SCHEME)
    with pytest.raises(NotOurs):
        disks(api).adopt(put_disk(api, dict(SCHEME)), None, SCHEME)
    assert api.writes() == []


def test_adopt_of_a_disk_changed_since_it_was_read_is_a_conflict(api):
    current = put_disk(api, dict(SCHEME))
    put_disk(api, {**SCHEME, L.CLUSTER_UUID: OTHER})  # relabelled meanwhile
    with pytest.raises(Conflict):
        disks(api).adopt(current, BOUND, SCHEME)
    assert api.peek(r.VIRTUAL_DISK, "pvc-1", NS)["metadata"]["labels"][L.CLUSTER_UUID] == OTHER

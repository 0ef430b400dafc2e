# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""AdmissionReview tests of the snapshot webhooks: VolumeSnapshot, VolumeSnapshotContent, VolumeSnapshotClass
and the VolumeSnapshotClass selection (mutating)."""

from __future__ import annotations

import pytest

from testkit.webhooks import FakeLookups, allowed, body, denied, run

G = "snapshot.storage.k8s.io"
VS_REF = f'VolumeSnapshot.{G} "app/snap"'
VSC_REF = f'VolumeSnapshotContent.{G} "content-1"'


def vs(pvc: str | None = "data", content: str | None = None, cls: str | None = None, **extra) -> dict:
    source = {k: v for k, v in (("persistentVolumeClaimName", pvc), ("volumeSnapshotContentName", content)) if v}
    spec: dict = {"source": source}
    if cls is not None:
        spec["volumeSnapshotClassName"] = cls
    spec.update(extra)
    return {"apiVersion": f"{G}/v1", "kind": "VolumeSnapshot", "metadata": {"name": "snap", "namespace": "app"},
            "spec": spec}


def vsr(op: str, obj: dict, old: dict | None = None) -> dict:
    return run("/validate-volumesnapshot", body("VolumeSnapshot", op, obj, old, namespace="app"))


def test_volume_snapshot_allowed():
    assert vsr("CREATE", vs()) == allowed()
    assert vsr("CREATE", vs(pvc=None, content="c1", cls="fast")) == allowed()
    assert vsr("UPDATE", vs(cls="fast"), vs(cls="fast")) == allowed()
    assert vsr("DELETE", vs(pvc=None)) == allowed()  # only CREATE and UPDATE are judged


@pytest.mark.parametrize("obj,message", [
    (vs(pvc="a", content="b"), f"{VS_REF}: exactly one of spec.source.persistentVolumeClaimName and "
                               "spec.source.volumeSnapshotContentName is required (both are set)"),
    (vs(pvc=None), f"{VS_REF}: exactly one of spec.source.persistentVolumeClaimName and "
                   "spec.source.volumeSnapshotContentName is required (neither is set)"),
    (vs(cls=""), f"{VS_REF}: spec.volumeSnapshotClassName must not be empty when set"),
])
def test_volume_snapshot_denied(obj, message):
    assert vsr("CREATE", obj) == denied(message)


def test_volume_snapshot_sources_immutable():
    assert vsr("UPDATE", vs(pvc="other"), vs()) == denied(
        f"{VS_REF}: spec.source.persistentVolumeClaimName is immutable ('data' -> 'other')")
    assert vsr("UPDATE", vs(pvc=None, content="c2"), vs(pvc=None, content="c1")) == denied(
        f"{VS_REF}: spec.source.volumeSnapshotContentName is immutable ('c1' -> 'c2')")
    assert vsr("UPDATE", vs(pvc=None), vs()) == denied(
        f"{VS_REF}: spec.source.persistentVolumeClaimName is immutable ('data' -> None)")


def test_volume_snapshot_pre_existing_empty_class_warns():
    old = vs(cls="")
    assert vsr("UPDATE", vs(cls=""), old) == allowed(
        f"{VS_REF}: spec.volumeSnapshotClassName must not be empty when set (already so before this change)")


def vsc(volume: str | None = "pvc-1", snapshot: str | None = None, ref: dict | None = None, mode: str | None = None):
    source = {k: v for k, v in (("volumeHandle", volume), ("snapshotHandle", snapshot)) if v}
    spec: dict = {"driver": "csi.dvp.deckhouse.io", "deletionPolicy": "Delete", "source": source,
                  "volumeSnapshotRef": {"name": "snap", "namespace": "app"} if ref is None else ref}
    if mode:
        spec["sourceVolumeMode"] = mode
    return {"apiVersion": f"{G}/v1", "kind": "VolumeSnapshotContent", "metadata": {"name": "content-1"},
            "spec": spec}


def vscr(op: str, obj: dict, old: dict | None = None) -> dict:
    return run("/validate-volumesnapshotcontent", body("VolumeSnapshotContent", op, obj, old))


def test_content_rules():
    assert vscr("CREATE", vsc()) == allowed()
    assert vscr("CREATE", vsc(volume=None, snapshot="vds-1")) == allowed()
    assert vscr("CREATE", vsc(snapshot="vds-1")) == denied(
        f"{VSC_REF}: exactly one of spec.source.volumeHandle and spec.source.snapshotHandle is required "
        "(both are set)")
    assert vscr("CREATE", vsc(ref={"name": "snap"})) == denied(
        f"{VSC_REF}: spec.volumeSnapshotRef.namespace is required")
    assert vscr("CREATE", vsc(ref={})) == denied(
        f"{VSC_REF}: spec.volumeSnapshotRef.name and namespace are required")
    assert vscr("UPDATE", vsc(volume="pvc-2"), vsc()) == denied(
        f"{VSC_REF}: spec.source.volumeHandle is immutable ('pvc-1' -> 'pvc-2')")
    assert vscr("UPDATE", vsc(mode="Block"), vsc(mode="Filesystem")) == denied(
        f"{VSC_REF}: spec.sourceVolumeMode is immutable ('Filesystem' -> 'Block')")
    assert vscr("UPDATE", vsc(mode="Block"), vsc()) == allowed()  # set once from empty
    assert vscr("UPDATE", vsc(ref={"name": "snap"}), vsc(ref={"name": "snap"})) == allowed(
        f"{VSC_REF}: spec.volumeSnapshotRef.namespace is required (already so before this change)")


def vsclass(name: str, driver: str = "csi.dvp.deckhouse.io", default: bool = False) -> dict:
    ann = {"snapshot.storage.kubernetes.io/is-default-class": "true"} if default else {}
    return {"apiVersion": f"{G}/v1", "kind": "VolumeSnapshotClass", "driver": driver, "deletionPolicy": "Delete",
            "metadata": {"name": name, "annotations": ann}}


def classr(op: str, obj: dict, old: dict | None = None, existing: list | None = None) -> tuple[dict, FakeLookups]:
    lookups = FakeLookups(snapshot_classes=existing or [])
    return run("/validate-volumesnapshotclass", body("VolumeSnapshotClass", op, obj, old), lookups), lookups


def test_one_default_class_per_driver():
    existing = [vsclass("a", default=True), vsclass("other", driver="x.csi", default=True)]
    out, lookups = classr("CREATE", vsclass("b"), existing=existing)
    assert out == allowed() and lookups.asked == []  # not default: nothing to list
    assert classr("CREATE", vsclass("b", driver="y.csi", default=True), existing=existing)[0] == allowed()
    assert classr("CREATE", vsclass("b", default=True), existing=existing)[0] == denied(
        f'VolumeSnapshotClass.{G} "b": default snapshot class "a" already exists for driver '
        "'csi.dvp.deckhouse.io'")
    assert classr("UPDATE", vsclass("b", default=True), vsclass("b"), existing=existing)[0]["response"][
        "allowed"] is False
    # re-applying a class that already was default is not the change that made two
    assert classr("UPDATE", vsclass("a", default=True), vsclass("a", default=True),
                  existing=existing + [vsclass("c", default=True)])[0] == allowed(
        f'VolumeSnapshotClass.{G} "a": default snapshot class "c" already exists for driver '
        "'csi.dvp.deckhouse.io'")
    # the class itself in the list does not count
    assert classr("UPDATE", vsclass("a", default=True), vsclass("a"), existing=existing)[0] == allowed()


def sc(name: str, annotation: str | None = None, managed: bool = False) -> dict:
    md: dict = {"name": name, "annotations": {}, "labels": {}}
    if annotation:
        md["annotations"]["storage.deckhouse.io/volumesnapshotclass"] = annotation
    if managed:
        md["labels"]["storage.deckhouse.io/managed-by"] = "sds-replicated-volume"
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": md, "provisioner": "x"}


def pvc(name: str = "data", cls: str | None = "fast") -> dict:
    spec = {"storageClassName": cls} if cls else {}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "app"},
            "spec": spec}


def mutate(obj: dict, *, pvcs=None, scs=None, op: str = "CREATE") -> dict:
    lookups = FakeLookups(pvcs=[pvc()] if pvcs is None else pvcs, storage_classes=scs or [])
    old = obj if op == "UPDATE" else None
    return run("/volume-snapshot-mutate", body("VolumeSnapshot", op, obj, old, namespace="app"), lookups)


def test_class_selection():
    patch = [{"op": "add", "path": "/spec/volumeSnapshotClassName", "value": "dvp"}]
    assert mutate(vs(), scs=[sc("fast", "dvp")]) == allowed(patch=patch)
    assert mutate(vs(), scs=[sc("fast", "dvp", managed=True)]) == allowed(patch=patch)
    assert mutate(vs(cls="mine"), scs=[sc("fast", "dvp")]) == allowed()  # unmanaged: the user's choice stands
    assert mutate(vs(cls="dvp"), scs=[sc("fast", "dvp", managed=True)]) == allowed()
    assert mutate(vs(), scs=[sc("fast")]) == allowed()  # nothing to select
    assert mutate(vs(pvc=None, content="c1"), pvcs=[]) == allowed()  # pre-provisioned: left alone
    assert mutate(vs(), op="UPDATE", pvcs=[]) == allowed()  # only CREATE


@pytest.mark.parametrize("obj,pvcs,scs,message", [
    (vs(cls="mine"), None, [sc("fast", "dvp", managed=True)],
     f"{VS_REF}: spec.volumeSnapshotClassName 'mine' differs from 'dvp' that StorageClass.storage.k8s.io \"fast\" "
     "prescribes"),
    (vs(), None, [sc("fast", managed=True)],
     f'{VS_REF}: StorageClass.storage.k8s.io "fast" is managed by Deckhouse but has no '
     "storage.deckhouse.io/volumesnapshotclass annotation"),
    (vs(), [], [], f'{VS_REF}: PersistentVolumeClaim "app/data" not found'),
    (vs(), [pvc(cls=None)], [], f'{VS_REF}: PersistentVolumeClaim "app/data" has no spec.storageClassName'),
    (vs(), None, [], f'{VS_REF}: StorageClass.storage.k8s.io "fast" of PersistentVolumeClaim "app/data" not found'),
])
def test_class_selection_denied(obj, pvcs, scs, message):
    assert mutate(obj, pvcs=pvcs, scs=scs) == denied(message)

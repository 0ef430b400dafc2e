# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VolumeSnapshotClass selection on VolumeSnapshot CREATE (as Deckhouse's mutating webhook selects it).

A snapshot of a PVC takes its class from the PVC's StorageClass annotation storage.deckhouse.io/volumesnapshotclass.
A StorageClass managed by Deckhouse (label storage.deckhouse.io/managed-by) must carry the annotation, and a
snapshot naming another class is denied; for other StorageClasses the annotation only fills in a missing class.
A snapshot without a PVC source is left alone.
"""

from __future__ import annotations

from typing import Any

from dvp_common.admission.review import Request
from dvp_common.admission.verdict import Verdict

ANNOTATION = "storage.deckhouse.io/volumesnapshotclass"
MANAGED_LABEL = "storage.deckhouse.io/managed-by"


def pvc_name(req: Request) -> str | None:
    if req.operation != "CREATE":
        return None
    return ((((req.obj or {}).get("spec") or {}).get("source") or {}).get("persistentVolumeClaimName")) or None


def select(req: Request, pvc: dict[str, Any] | None, sc: dict[str, Any] | None) -> Verdict:
    """`pvc` None: not found; `sc` None: the PVC names no class, or it was not found."""
    name = pvc_name(req)
    if name is None:
        return Verdict.allow()
    ref, ns = req.ref(), req.namespace
    if pvc is None:
        return Verdict.deny(f'{ref}: PersistentVolumeClaim "{ns}/{name}" not found')
    sc_name = (pvc.get("spec") or {}).get("storageClassName")
    if not sc_name:
        return Verdict.deny(f'{ref}: PersistentVolumeClaim "{ns}/{name}" has no spec.storageClassName')
    if sc is None:
        return Verdict.deny(f'{ref}: StorageClass.storage.k8s.io "{sc_name}" of PersistentVolumeClaim '
                            f'"{ns}/{name}" not found')
    meta = sc.get("metadata") or {}
    wanted = (meta.get("annotations") or {}).get(ANNOTATION) or ""
    managed = MANAGED_LABEL in (meta.get("labels") or {})
    spec = (req.obj or {}).get("spec") or {}
    given = spec.get("volumeSnapshotClassName")
    if managed and not wanted:
        return Verdict.deny(f'{ref}: StorageClass.storage.k8s.io "{sc_name}" is managed by Deckhouse but has no '
                            f"{ANNOTATION} annotation")
    if managed and given and given != wanted:
        return Verdict.deny(f'{ref}: spec.volumeSnapshotClassName {given!r} differs from {wanted!r} that '
                            f'StorageClass.storage.k8s.io "{sc_name}" prescribes')
    if given or not wanted:
        return Verdict.allow()
    return Verdict.allow(patch=[{"op": "add", "path": "/spec/volumeSnapshotClassName", "value": wanted}])

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What a guest PersistentVolume proves about the DVP disk it names (pure): the one rule the CSI driver adopts by
and the pre-switch report (dvp_common.takeover) judges by.

A PV of this driver naming a disk by volumeHandle is a proof; a strong one (`Proof.strong`, enough for a disk
whose cluster UUID is empty or absent) when the PV is bound to a claim of this guest whose uid is the one the
provisioner put in the volume's name (`pvc-<claim uid>`): the API server chose that uid, so no guest user can
point it at another cluster's disk. A PV alone a guest user could write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from dvp_common.dvp.adoption import Proof

DRIVER_NAME = "csi.dvp.deckhouse.io"  # the CSI driver's name, in every PV it provisions

Obj = Mapping[str, Any]


def handle_of(pv: Obj) -> str:
    """The volumeHandle of a PV of this driver, else ""."""
    csi = (pv.get("spec") or {}).get("csi") or {}
    return csi.get("volumeHandle") or "" if csi.get("driver") == DRIVER_NAME else ""


def claim_uid(claim: Obj) -> str:
    return (claim.get("metadata") or {}).get("uid") or ""


def proof_of(pv: Obj, claim_by_uid: Callable[[str], Obj | None]) -> Proof | None:
    """The proof `pv` gives for the disk its volumeHandle names; `claim_by_uid`: the guest's claim of that uid."""
    handle = handle_of(pv)
    if not handle:
        return None
    name = pv["metadata"]["name"]
    ref = (pv.get("spec") or {}).get("claimRef") or {}
    uid = ref.get("uid") or ""
    claim = claim_by_uid(uid) if uid else None
    if claim is not None and handle == f"pvc-{uid}" and (claim.get("spec") or {}).get("volumeName") == name \
            and (claim["metadata"].get("namespace"), claim["metadata"].get("name")) \
            == (ref.get("namespace"), ref.get("name")):
        return Proof("PersistentVolume", name, "volumeHandle; bound to PersistentVolumeClaim "
                     f"{ref.get('namespace')}/{ref.get('name')}, uid {uid}", strong=True)
    return Proof("PersistentVolume", name, "volumeHandle")


def proofs(pvs: Iterable[Obj], claim_by_uid: Callable[[str], Obj | None]) -> dict[str, Proof]:
    """volumeHandle -> proof, over PVs; of two PVs naming one disk the strong proof wins (the last one else)."""
    out: dict[str, Proof] = {}
    for pv in pvs:
        found = proof_of(pv, claim_by_uid)
        if found is None:
            continue
        handle = handle_of(pv)
        had = out.get(handle)
        if had is None or found.strong or not had.strong:
            out[handle] = found
    return out

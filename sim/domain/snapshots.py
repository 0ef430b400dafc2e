# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualDiskSnapshot: Pending -> InProgress -> Ready once its disk is Ready."""

from __future__ import annotations

from .. import conditions as C
from ..world import deleting, meta, phase, spec, status
from .plan import Obj, Plan, changed, new_status, wait_phase

KIND = "VirtualDiskSnapshot"
# The size a disk restored from the snapshot gets. DVP takes it from the snapshot's VolumeSnapshot
# (status.restoreSize), which the simulator does not create, and a VirtualDiskSnapshot has no size field: the
# simulator keeps it here.
RESTORE_SIZE_ANNOTATION = "dvp-sim.deckhouse.io/restore-size"


def restore_size(snap: Obj) -> str | None:
    return (meta(snap).get("annotations") or {}).get(RESTORE_SIZE_ANNOTATION)


def reconcile(snap: Obj, world, cfg) -> Plan:
    plan = Plan()
    if deleting(snap):
        return plan
    st = new_status(snap)
    current = st.get("phase") or ""
    disk = world.get("VirtualDisk", meta(snap).get("namespace"), spec(snap).get("virtualDiskName", ""))
    if current in ("", "Pending"):
        st["phase"] = "Pending"
        if disk is None or phase(disk) != "Ready":
            what = "not found" if disk is None else phase(disk) or "Pending"
            C.put(st, C.VDS_DISK_READY, False, C.R_VDS_DISK_NOT_READY, f"the disk is {what}")
        else:
            C.put(st, C.VDS_DISK_READY, True, C.R_VDS_DISK_READY)
            st["phase"] = "InProgress"
            C.put(st, C.VDS_READY, False, C.R_VDS_SNAPSHOTTING, "the snapshot is being taken")
            world.enter(snap, "InProgress")
            plan.wake(cfg.delay(KIND, "InProgress"))
    elif current == "InProgress" and wait_phase(plan, world, snap, KIND, "InProgress", cfg):
        st["phase"] = "Ready"
        st["volumeSnapshotName"] = f"vs-{meta(snap)['name']}"
        st["consistent"] = True
        size = status(disk).get("capacity") or restore_size(snap)
        if size and size != restore_size(snap):
            plan.patch = {"metadata": {"annotations": {RESTORE_SIZE_ANNOTATION: size}}}
        C.put(st, C.VDS_READY, True, C.R_VDS_READY)
    plan.status = changed(snap, st)
    return plan

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ControllerModifyVolume: a VolumeAttributesClass's `dvpStorageClass` moves the VirtualDisk to another DVP
storage class.

DVP changes a disk's class by a patch of `spec.persistentVolumeClaim.storageClassName`: a disk not provisioned yet
(Pending, WaitForFirstConsumer) simply takes the new class; a provisioned one is migrated (phase Migrating, then
Ready with `status.storageClassName` the new class and `status.migrationState.result`). DVP's webhook decides what
it can migrate (today only a disk a running VM mounts without hot-plugged devices): its refusal, like an unknown
class, is INVALID_ARGUMENT and nothing is changed.
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from dvp_common.dvp import disk_state, state
from dvp_common.dvp.objects import Obj
from dvp_common.kube import AdmissionDenied, WaitTimeout

from .access import Dvp
from .domain import disks
from .domain.errors import CsiError, invalid
from .settings import Settings
from .volumes import STORAGE_CLASS_PARAM

MUTABLE_PARAMETERS = frozenset({STORAGE_CLASS_PARAM})
# Phases in which a class change would race DVP's own work on the disk: retried once it settles.
BUSY_PHASES = frozenset({"Provisioning", "Resizing"})


def mutable_class(params: Mapping[str, str], what: str) -> str:
    """The storage class a VolumeAttributesClass asks for ("" when it names none); unknown keys are refused."""
    unknown = sorted(set(params) - MUTABLE_PARAMETERS)
    if unknown:
        raise invalid(f"{what}: mutable_parameters {', '.join(unknown)} not supported "
                      f"(only {STORAGE_CLASS_PARAM})")
    if STORAGE_CLASS_PARAM in params and not params[STORAGE_CLASS_PARAM]:
        raise invalid(f"{what}: mutable_parameters.{STORAGE_CLASS_PARAM} must not be empty")
    return params.get(STORAGE_CLASS_PARAM, "")


def create_parameters(params: Mapping[str, str], mutable: Mapping[str, str], what: str) -> dict[str, str]:
    """CreateVolume: the class of the volume's VolumeAttributesClass wins over the StorageClass's."""
    wanted = mutable_class(mutable, what)
    return {**params, STORAGE_CLASS_PARAM: wanted} if wanted else dict(params)


def migration_failure(disk: Obj, target: str) -> str:
    """DVP's message when its last migration to `target` failed (the disk stays on its old class)."""
    st = disk.get("status") or {}
    state = st.get("migrationState") or {}
    if state.get("result") == "Failed" and st.get("storageClassName") != target:
        return str(state.get("message") or "migration failed")
    return ""


class Modifications:
    def __init__(self, dvp: Dvp, settings: Settings) -> None:
        self.dvp = dvp
        self.s = settings

    def modify(self, volume_id: str, params: Mapping[str, str], timeout: float) -> None:
        target = mutable_class(params, f"volume {volume_id}")
        disk = self.dvp.volume(volume_id)  # missing or foreign: NotFound
        if not target:
            return
        if disk_state.storage_class(disk) != target:
            self._check_feasible(volume_id, disk, target)
            try:
                # the disk judged above, by uid (dvp_common's guarded patch)
                disk = self.dvp.disks.patch(volume_id, {"spec": {"persistentVolumeClaim": {
                    "storageClassName": target}}}, disk)
            except AdmissionDenied as exc:
                raise invalid(f"volume {volume_id}: DVP cannot move VirtualDisk {volume_id} to storage class "
                              f"{target}: {exc.message}") from exc
        self._wait_moved(volume_id, disk["metadata"]["uid"], target, timeout)

    def _check_feasible(self, volume_id: str, disk: Obj, target: str) -> None:
        # a list, not a get: the CSI's DVP ClusterRole lists StorageClasses only, as the discoverer's does
        if not any(sc["metadata"]["name"] == target for sc in self.dvp.storage_classes.list(self.s.timeouts.modify)):
            raise invalid(f"volume {volume_id}: mutable_parameters.{STORAGE_CLASS_PARAM}: DVP has no "
                          f"StorageClass {target!r}")
        if state.phase(disk) in BUSY_PHASES:
            raise CsiError(grpc.StatusCode.ABORTED, f"volume {volume_id}: VirtualDisk is {state.phase(disk)}; "
                           "retry once it settles")
        failure = disks.disk_failure(disk)
        if failure is not None:
            raise CsiError(grpc.StatusCode.FAILED_PRECONDITION, f"volume {volume_id}: {failure.message}")

    def _wait_moved(self, volume_id: str, uid: str, target: str, timeout: float) -> None:
        def done(d: Obj | None) -> bool:
            if d is None or d["metadata"]["uid"] != uid:
                return True
            st = d.get("status") or {}
            settled = st.get("storageClassName") == target and state.phase(d) != "Migrating"
            return settled or bool(migration_failure(d, target)) or disks.disk_failure(d) is not None

        try:
            disk = self.dvp.disks.wait(volume_id, done, min(timeout, self.s.timeouts.modify), disks.describe)
        except WaitTimeout as exc:
            raise CsiError(grpc.StatusCode.DEADLINE_EXCEEDED,
                           f"VirtualDisk {volume_id} is not on storage class {target} yet ({exc.last_state})") from exc
        if disk is None or disk["metadata"]["uid"] != uid:
            raise CsiError(grpc.StatusCode.NOT_FOUND, f"volume {volume_id}: VirtualDisk deleted while moving")
        failed = migration_failure(disk, target)
        if failed:
            raise CsiError(grpc.StatusCode.INTERNAL, f"VirtualDisk {volume_id}: migration to {target} failed: {failed}")
        failure = disks.disk_failure(disk)
        if failure:
            raise failure

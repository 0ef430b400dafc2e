# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Condition types, reasons and annotation keys the simulator writes, as constants."""

from __future__ import annotations

import datetime
from typing import Any

from dvp_common.dvp import conditions as D
from dvp_common.rfc3339 import format_time

# condition types and reasons: DVP's, from the one table (dvp_common.dvp.conditions); the simulator writes DVP
# v1.8.0's spellings, or v1.0.0's for a renamed reason under SimConfig.dvp_api_version (spelled())
READY = D.VD_READY.value  # also VirtualImage's, ClusterVirtualImage's and ServiceWithHealthchecks' type
RESIZING = D.VD_RESIZING.value
DATASOURCE_READY = D.VD_DATASOURCE_READY.value
STORAGE_CLASS_READY = D.VD_STORAGE_CLASS_READY.value
RUNNING = D.VM_RUNNING.value
BLOCK_DEVICES_READY = D.VM_BLOCK_DEVICES_READY.value
PROVISIONING_READY = D.VM_PROVISIONING_READY.value
CLASS_READY = D.VM_CLASS_READY.value
IP_ADDRESS_READY = D.VM_IP_ADDRESS_READY.value
ATTACHED = D.VMBDA_ATTACHED.value
VM_READY = D.VMBDA_VM_READY.value
BLOCK_DEVICE_READY = D.VMBDA_BLOCK_DEVICE_READY.value
CAPACITY_AVAILABLE = D.VMBDA_CAPACITY.value  # sic: DVP's type name ends in "Type"
SIGNAL_SENT = D.VMOP_SIGNAL_SENT.value
COMPLETED = D.VMOP_COMPLETED.value
BOUND = D.VMIP_BOUND.value
AWAITING_RESTART = D.VM_AWAITING_RESTART.value
CONFIGURATION_APPLIED = D.VM_CONFIGURATION_APPLIED.value
AGENT_READY = D.VM_AGENT_READY.value
MIGRATABLE = D.VM_MIGRATABLE.value
VDS_DISK_READY = D.VDS_VIRTUAL_DISK_READY.value
VDS_READY = D.VDS_READY.value


def _r(ctype: D.ConditionType, value: str) -> str:
    return D.reason_of(ctype, value).value


# VirtualDisk
R_READY = _r(D.VD_READY, "Ready")  # also VirtualImage's and ClusterVirtualImage's Ready reason
R_PROVISIONING = _r(D.VD_READY, "Provisioning")
R_NOT_STARTED = _r(D.VD_READY, "ProvisioningNotStarted")
R_WAIT_CONSUMER = _r(D.VD_READY, "WaitingForFirstConsumer")
R_QUOTA = _r(D.VD_READY, "QuotaExceeded")
R_FAILED = _r(D.VD_READY, "ProvisioningFailed")
R_PVC_LOST = _r(D.VD_READY, "PVCLost")
R_DS_NOT_READY = _r(D.VD_READY, "DatasourceIsNotReady")
R_DS_NOT_FOUND = _r(D.VD_READY, "DatasourceIsNotFound")
R_SC_NOT_READY = _r(D.VD_READY, "StorageClassIsNotReady")
R_DATASOURCE_READY = _r(D.VD_DATASOURCE_READY, "DatasourceReady")
R_IMAGE_NOT_FOUND = _r(D.VD_DATASOURCE_READY, "ImageNotFound")
R_CLUSTER_IMAGE_NOT_FOUND = _r(D.VD_DATASOURCE_READY, "ClusterImageNotFound")
R_IMAGE_NOT_READY = _r(D.VD_DATASOURCE_READY, "ImageNotReady")
R_CLUSTER_IMAGE_NOT_READY = _r(D.VD_DATASOURCE_READY, "ClusterImageNotReady")
R_SNAPSHOT_NOT_READY = _r(D.VD_DATASOURCE_READY, "VirtualDiskSnapshot")
R_STORAGE_CLASS_READY = _r(D.VD_STORAGE_CLASS_READY, "StorageClassReady")
R_STORAGE_CLASS_NOT_READY = _r(D.VD_STORAGE_CLASS_READY, "StorageClassNotReady")
R_RESIZING = _r(D.VD_RESIZING, "InProgress")
R_RESIZING_NOT_AVAILABLE = _r(D.VD_RESIZING, "NotAvailable")
# VirtualMachineBlockDeviceAttachment
R_CAPACITY = _r(D.VMBDA_CAPACITY, "CapacityReached")
R_CAPACITY_OK = _r(D.VMBDA_CAPACITY, "CapacityAvailable")
R_ATTACH_SENT = _r(D.VMBDA_ATTACHED, "AttachmentRequestSent")
R_ATTACHED = _r(D.VMBDA_ATTACHED, "Attached")
R_NOT_ATTACHED = _r(D.VMBDA_ATTACHED, "NotAttached")
R_VMBDA_VM_READY = _r(D.VMBDA_VM_READY, "VirtualMachineReady")
R_VMBDA_VM_NOT_READY = _r(D.VMBDA_VM_READY, "VirtualMachineNotReady")
R_BLOCK_DEVICE_READY = _r(D.VMBDA_BLOCK_DEVICE_READY, "BlockDeviceReady")
R_BLOCK_DEVICE_NOT_READY = _r(D.VMBDA_BLOCK_DEVICE_READY, "BlockDeviceNotReady")
# VirtualMachineOperation
R_VM_NOT_FOUND = _r(D.VMOP_COMPLETED, "VirtualMachineNotFound")
R_NOT_READY_TO_RUN = _r(D.VMOP_COMPLETED, "NotReadyToBeExecuted")
R_NOT_FOR_RUN_POLICY = _r(D.VMOP_COMPLETED, "NotApplicableForVirtualMachineRunPolicy")
R_NOT_FOR_VM_PHASE = _r(D.VMOP_COMPLETED, "NotApplicableForVirtualMachinePhase")
R_OPERATION_COMPLETED = _r(D.VMOP_COMPLETED, "OperationCompleted")
R_START_IN_PROGRESS = _r(D.VMOP_COMPLETED, "StartInProgress")
R_STOP_IN_PROGRESS = _r(D.VMOP_COMPLETED, "StopInProgress")
R_RESTART_IN_PROGRESS = _r(D.VMOP_COMPLETED, "RestartInProgress")
R_RESTORE_IN_PROGRESS = _r(D.VMOP_COMPLETED, "RestoreInProgress")
R_CLONE_IN_PROGRESS = _r(D.VMOP_COMPLETED, "CloneInProgress")
R_MIGRATION_RUNNING = _r(D.VMOP_COMPLETED, "MigrationRunning")
R_SIGNAL_SENT = _r(D.VMOP_SIGNAL_SENT, "SignalSentSuccess")
# VirtualMachine
R_CLASS_READY = _r(D.VM_CLASS_READY, "VirtualMachineClassReady")
R_CLASS_NOT_READY = _r(D.VM_CLASS_READY, "VirtualMachineClassNotReady")
R_BLOCK_DEVICES_READY = _r(D.VM_BLOCK_DEVICES_READY, "BlockDevicesReady")
R_BLOCK_DEVICES_NOT_READY = _r(D.VM_BLOCK_DEVICES_READY, "BlockDevicesNotReady")
R_PROVISIONING_READY = _r(D.VM_PROVISIONING_READY, "ProvisioningReady")
R_PROVISIONING_NOT_READY = _r(D.VM_PROVISIONING_READY, "ProvisioningNotReady")
R_IP_READY = _r(D.VM_IP_ADDRESS_READY, "VirtualMachineIPAddressReady")
R_IP_NOT_READY = _r(D.VM_IP_ADDRESS_READY, "VirtualMachineIPAddressNotReady")
R_RUNNING = _r(D.VM_RUNNING, "Running")
R_NOT_RUNNING = _r(D.VM_RUNNING, "NotRunning")
R_POD_NOT_STARTED = _r(D.VM_RUNNING, "PodNotStarted")
R_RESTART_AWAITING = _r(D.VM_AWAITING_RESTART, "ChangesPendingRestart")
R_NOT_APPLIED = _r(D.VM_CONFIGURATION_APPLIED, "ConfigurationNotApplied")
R_AGENT_READY = _r(D.VM_AGENT_READY, "AgentReady")
R_AGENT_NOT_READY = _r(D.VM_AGENT_READY, "AgentNotReady")
R_MIGRATABLE = _r(D.VM_MIGRATABLE, "VirtualMachineMigratable")
# VirtualDiskSnapshot
R_VDS_DISK_READY = _r(D.VDS_VIRTUAL_DISK_READY, "VirtualDiskReady")
R_VDS_DISK_NOT_READY = _r(D.VDS_VIRTUAL_DISK_READY, "VirtualDiskNotReadyForSnapshotting")
R_VDS_SNAPSHOTTING = _r(D.VDS_READY, "Snapshotting")
R_VDS_READY = _r(D.VDS_READY, "VirtualDiskSnapshotReady")
UNKNOWN = D.UNKNOWN

# annotation with the disk serial (md5 of metadata.uid), so tests of the guest side can find the device
SERIAL_ANNOTATION = "dvp-sim.deckhouse.io/serial"
VMBDA_FINALIZER = "virtualization.deckhouse.io/vmbda-protection"


def now_iso() -> str:
    return format_time(datetime.datetime.now(datetime.UTC))


def find(status: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == ctype), None)


def drop(status: dict[str, Any], ctype: str) -> None:
    """Remove a condition (DVP removes some instead of setting them False)."""
    if any(c.get("type") == ctype for c in status.get("conditions") or []):
        status["conditions"] = [c for c in status["conditions"] if c.get("type") != ctype]


def put(status: dict[str, Any], ctype: str, value: bool | None, reason: str, message: str = "",
        generation: int | None = None) -> None:
    """Set a condition (None: Unknown); lastTransitionTime moves only when status flips (a steady state writes
    nothing). `generation`: the object's metadata.generation the condition judged (observedGeneration), where
    DVP's readers compare it (a VirtualDisk's Resizing)."""
    state = "Unknown" if value is None else "True" if value else "False"
    conds = [dict(c) for c in status.get("conditions") or []]
    old = next((c for c in conds if c.get("type") == ctype), None)
    new = {"type": ctype, "status": state, "reason": reason, "message": message,
           "lastTransitionTime": old["lastTransitionTime"] if old and old.get("status") == state
           and old.get("lastTransitionTime") else now_iso()}
    if generation is not None:
        new["observedGeneration"] = generation
    if old:
        conds[conds.index(old)] = new
    else:
        conds.append(new)
    status["conditions"] = conds


def spelled(status: dict[str, Any] | None, api_version: str) -> dict[str, Any] | None:
    """The status with every renamed reason as a DVP of that API version spells it (v1.8.0: as written)."""
    if status is None or api_version == D.API_VERSION:
        return status
    old = {(t.value, r.value): D.spelled(r, api_version) for t in D.TYPES for r in t.reasons if r.old}
    conds = [{**c, "reason": old.get((c.get("type"), c.get("reason")), c.get("reason"))}
             for c in status.get("conditions") or []]
    return {**status, "conditions": conds} if "conditions" in status else status

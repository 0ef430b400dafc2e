# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Condition types, reasons and annotation keys the simulator writes, as constants."""

from __future__ import annotations

import datetime
from typing import Any

from dvp_common.rfc3339 import format_time

# condition types
READY = "Ready"
RESIZING = "Resizing"
DATASOURCE_READY = "DatasourceReady"
STORAGE_CLASS_READY = "StorageClassReady"
RUNNING = "Running"
BLOCK_DEVICES_READY = "BlockDevicesReady"
PROVISIONING_READY = "ProvisioningReady"
CLASS_READY = "VirtualMachineClassReady"
IP_ADDRESS_READY = "VirtualMachineIPAddressReady"
ATTACHED = "Attached"
VM_READY = "VirtualMachineReady"
BLOCK_DEVICE_READY = "BlockDeviceReady"
CAPACITY_AVAILABLE = "DiskAttachmentCapacityAvailableType"  # sic: DVP's type name ends in "Type"
SIGNAL_SENT = "SignalSent"
COMPLETED = "Completed"
BOUND = "Bound"
AWAITING_RESTART = "AwaitingRestartToApplyConfiguration"
CONFIGURATION_APPLIED = "ConfigurationApplied"
AGENT_READY = "AgentReady"
MIGRATABLE = "Migratable"

# reasons
R_READY = "Ready"
R_PROVISIONING = "Provisioning"
R_NOT_STARTED = "ProvisioningNotStarted"
R_WAIT_CONSUMER = "WaitingForFirstConsumer"
R_QUOTA = "QuotaExceeded"
R_FAILED = "ProvisioningFailed"
R_PVC_LOST = "PVCLost"
R_DS_NOT_READY = "DatasourceIsNotReady"
R_DS_NOT_FOUND = "DatasourceIsNotFound"
R_SC_NOT_READY = "StorageClassIsNotReady"
R_RESIZING = "InProgress"
R_CAPACITY = "CapacityReached"
R_CAPACITY_OK = "CapacityAvailable"
R_NOT_FOUND = "NotFound"
R_NOT_READY = "NotReady"
R_ATTACH_SENT = "AttachmentRequestSent"
R_ATTACHED = "Attached"
R_SUPERSEDED = "Superseded"
R_NOT_ATTACHED = "NotAttached"
R_VM_NOT_FOUND = "VirtualMachineNotFound"
R_NOT_READY_TO_RUN = "NotReadyToBeExecuted"
R_NOT_FOR_RUN_POLICY = "NotApplicableForRunPolicy"
R_NOT_FOR_VM_PHASE = "NotApplicableForVMPhase"
R_OPERATION_COMPLETED = "OperationCompleted"
R_SIGNAL_SENT = "SignalSentSuccess"
R_RESTART_AWAITING = "RestartAwaitingChangesExist"
R_NOT_APPLIED = "ConfigurationNotApplied"
R_AGENT_READY = "AgentReady"
R_AGENT_NOT_READY = "AgentNotReady"
R_MIGRATABLE = "VirtualMachineMigratable"
R_POD_NOT_STARTED = "PodNotStarted"

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


def put(status: dict[str, Any], ctype: str, value: bool | None, reason: str, message: str = "") -> None:
    """Set a condition (None: Unknown); lastTransitionTime moves only when status flips (a steady state writes
    nothing)."""
    state = "Unknown" if value is None else "True" if value else "False"
    conds = [dict(c) for c in status.get("conditions") or []]
    old = next((c for c in conds if c.get("type") == ctype), None)
    new = {"type": ctype, "status": state, "reason": reason, "message": message,
           "lastTransitionTime": old["lastTransitionTime"] if old and old.get("status") == state
           and old.get("lastTransitionTime") else now_iso()}
    if old:
        conds[conds.index(old)] = new
    else:
        conds.append(new)
    status["conditions"] = conds

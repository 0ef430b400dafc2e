# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Condition types, reasons and the one rule for setting a condition (lastTransitionTime moves only on change)."""

from __future__ import annotations

from dataclasses import dataclass

# Types
READY = "Ready"  # mirrored by CAPI into Machine InfrastructureReady
VM_READY = "VirtualMachineReady"
PAUSED = "Paused"
IN_PLACE_UPDATE = "InPlaceUpdate"

# Reasons: waiting for Cluster API
WAITING_FOR_CLUSTER_INFRASTRUCTURE = "WaitingForClusterInfrastructure"
WAITING_FOR_BOOTSTRAP_SCRIPT = "WaitingForBootstrapScript"
# Reasons: checks before creating
VM_CLASS_NOT_FOUND = "VirtualMachineClassNotFound"
BOOT_IMAGE_NOT_FOUND = "BootImageNotFound"
QUOTA_EXCEEDED = "QuotaExceeded"
CREATE_FAILED = "VMCreateFailed"
DVP_FORBIDDEN = "DVPForbidden"  # retried: an admin grants the permission
FOREIGN_OBJECT = "ForeignObjectExists"
INVALID_SPEC = "InvalidSpec"
# Reasons: VM phases
VM_RUNNING = "VMRunning"
VM_NOT_READY = "VMNotReady"
VM_STOPPED = "VMInStoppedState"
VM_DEGRADED = "VMDegraded"
VM_ERROR = "VMError"
VM_DELETED = "VMDeletedExternally"
# Reasons: in-place updates
UPDATE_STOPPING = "StoppingForUpdate"
UPDATE_STARTING = "StartingAfterUpdate"
UPDATE_RESTARTING = "RestartingForUpdate"
UPDATE_WAITING = "WaitingForVMOperation"  # DVP runs one operation per VM at a time
UPDATE_APPLIED = "UpdateApplied"
UPDATE_FAILED = "UpdateTimedOut"  # the generation is abandoned (deadline passed, or DVP failed our operation)
UPDATE_REFUSED = "UpdateNotPossible"  # no restart DVP offers for the VM's runPolicy
RECREATE_REQUIRED = "RecreateRequired"
# Reasons: pause and deletion
CLUSTER_PAUSED = "ClusterPaused"
NOT_PAUSED = "NotPaused"
DELETING = "Deleting"

# Terminal failures (status.failureReason, Cluster API v1beta1 contract)
FAILURE_CREATE = "CreateError"
FAILURE_UPDATE = "UpdateMachineError"

TRUE, FALSE, UNKNOWN = "True", "False", "Unknown"


@dataclass(frozen=True)
class Condition:
    type: str
    status: str
    reason: str
    message: str = ""


def merge(existing: list[dict], wanted: list[Condition], now: str, generation: int) -> list[dict]:
    """Set `wanted` over `existing`, keeping lastTransitionTime when the status did not change."""
    by_type = {c.get("type"): c for c in existing or []}
    out = [c for c in existing or [] if c.get("type") not in {w.type for w in wanted}]
    for w in wanted:
        old = by_type.get(w.type) or {}
        ltt = old.get("lastTransitionTime") if old.get("status") == w.status else None
        out.append({
            "type": w.type, "status": w.status, "reason": w.reason, "message": w.message,
            "observedGeneration": generation, "lastTransitionTime": ltt or now,
        })
    return sorted(out, key=lambda c: c["type"])

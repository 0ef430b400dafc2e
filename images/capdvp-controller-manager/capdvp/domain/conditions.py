# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Condition types, reasons and the one rule for setting a condition (lastTransitionTime moves only on change)."""

from __future__ import annotations

from dataclasses import dataclass

# Types
READY = "Ready"  # mirrored by CAPI into Machine InfrastructureReady
VM_READY = "VirtualMachineReady"
GUEST_BOOTED = "GuestBooted"  # DVP's guest agent answers and a Node with our providerID registered
LIVE_MIGRATABLE = "LiveMigratable"  # mirrored from DVP's Migratable condition on the VM
PAUSED = "Paused"
IN_PLACE_UPDATE = "InPlaceUpdate"

# Reasons: waiting for Cluster API
WAITING_FOR_CLUSTER_INFRASTRUCTURE = "WaitingForClusterInfrastructure"
WAITING_FOR_BOOTSTRAP_SCRIPT = "WaitingForBootstrapScript"
# Reasons: checks before creating
VM_CLASS_NOT_FOUND = "VirtualMachineClassNotFound"
BOOT_IMAGE_NOT_FOUND = "BootImageNotFound"
QUOTA_EXCEEDED = "QuotaExceeded"
DVP_ADMISSION_DENIED = "DVPAdmissionDenied"  # a DVP webhook refused the object (403): terminal as written
DVP_SCHEMA_INVALID = "DVPSchemaInvalid"  # DVP's schema refused the object (422): terminal as written
DVP_FORBIDDEN = "DVPForbidden"  # retried: an admin grants the permission
FOREIGN_OBJECT = "ForeignObjectExists"
INVALID_SPEC = "InvalidSpec"
FAILURE_DOMAIN_UNKNOWN = "FailureDomainNotFound"
# Reasons: after creation, what DVP's conditions say keeps a VM from running (cleared when DVP recovers)
VM_CLASS_MISSING = "VirtualMachineClassMissing"
BOOT_IMAGE_MISSING = "BootImageMissing"
DISK_QUOTA_EXCEEDED = "DiskQuotaExceeded"
BOOT_IMAGE_NOT_READY = "BootImageNotReady"  # passes by itself once DVP has the image
DISK_NOT_PROVISIONABLE = "DiskNotProvisionable"  # DVP cannot make a disk until someone changes something
VM_SIZING_POLICY_NOT_MATCHED = "SizingPolicyNotMatched"
VM_BLOCK_DEVICE_LIMIT = "BlockDeviceLimitExceeded"
VM_ADDRESS_NOT_AVAILABLE = "AddressNotAvailable"
VM_POD_NOT_STARTED = "VMPodNotStarted"  # DVP cannot start the VM's pod: no node fits (nodeSelector, zone), volumes
# Reasons: VM phases
VM_RUNNING = "VMRunning"
VM_NOT_READY = "VMNotReady"
VM_STOPPED = "VMInStoppedState"
VM_DEGRADED = "VMDegraded"
VM_ERROR = "VMError"
VM_DELETED = "VMDeletedExternally"
# Reasons: the guest (GuestBooted, and Ready once the boot timeout passed)
GUEST_WAITING_FOR_VM = "WaitingForVM"
GUEST_AGENT_NOT_READY = "GuestAgentNotReady"
GUEST_WAITING_FOR_NODE = "WaitingForNode"
GUEST_BOOTED_REASON = "GuestBooted"
GUEST_BOOT_TIMED_OUT = "GuestBootTimedOut"
# Reasons: LiveMigratable
MIGRATABLE_UNKNOWN = "MigratabilityUnknown"  # DVP has not reported Migratable yet (the VM is not running)
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

# Terminal failures (status.failureReason, Cluster API v1beta1 contract). Kept only for states no later DVP
# change can repair (an object refused as written, a VM another party owns, a provisioned VM gone): CAPI v1beta2
# still copies them into Machine status.deprecated.v1beta1. Everything else is Ready=False with a reason.
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

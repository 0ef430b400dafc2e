# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP's condition types and reasons, the ones we read or the simulator writes, with what each means for us.

The one table of them: every component, hook and the simulator takes its condition strings from here and decides by
type and reason, never by message. Each entry names DVP's Go constant (`core/v1alpha2/<package>/condition.go` of
`github.com/deckhouse/virtualization/api` v1.8.0); a reason DVP renamed since v1.0.0 carries the old spelling too,
and `is_reason` accepts both, since a parent DVP may run either. A string of a DVP release newer than the pinned
API module names the release it came in (`since`). `tests/dvp_common/test_conditions_are_dvps.py` holds all of it
to DVP's constants. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

API_VERSION = "v1.8.0"  # the DVP API module whose spellings are the primary ones
OLD_API_VERSION = "v1.0.0"  # the oldest one whose spellings we still accept


class Meaning(StrEnum):
    """What a reason tells a component that waits on the object."""

    PROGRESS = "progress"  # on the way, or there: keep waiting, nothing to report
    TRANSIENT = "transient"  # held up by something that passes by itself (DVP retries): wait, may be shown
    TERMINAL = "terminal"  # will not pass until someone changes something: report it, stop waiting
    CAPACITY = "capacity"  # a limit refuses it (quota, device slots): report it as exhausted capacity
    NOT_OURS = "not-ours"  # about a feature we never use, or not a judgement of the object: ignore it


@dataclass(frozen=True)
class Reason:
    value: str  # as DVP v1.8.0 writes it
    const: str  # DVP v1.8.0's Go constant name ("" for a string newer than v1.8.0)
    meaning: Meaning
    old: tuple[str, ...] = ()  # v1.0.0's spellings when DVP renamed it (the first is the one v1.0.0 writes here)
    since: str = ""  # the DVP release that added it, for a string newer than API_VERSION

    @property
    def spellings(self) -> frozenset[str]:
        return frozenset((self.value, *self.old))


@dataclass(frozen=True)
class ConditionType:
    kind: str
    package: str  # DVP's Go package of the constants
    value: str
    const: str
    reasons: tuple[Reason, ...]
    reason_type: str = ""  # DVP v1.8.0's Go type of this condition's reasons ("" when DVP's types do not tell)

    def reason(self, value: str) -> Reason | None:
        return next((r for r in self.reasons if value in r.spellings), None)


P, T, X, C, N = Meaning.PROGRESS, Meaning.TRANSIENT, Meaning.TERMINAL, Meaning.CAPACITY, Meaning.NOT_OURS
VD, VM, VMBDA, VMOP, VDS = ("VirtualDisk", "VirtualMachine", "VirtualMachineBlockDeviceAttachment",
                            "VirtualMachineOperation", "VirtualDiskSnapshot")
VMIP, VMIPL = "VirtualMachineIPAddress", "VirtualMachineIPAddressLease"


def _t(kind: str, package: str, value: str, const: str, reason_type: str, *reasons: Reason) -> ConditionType:
    return ConditionType(kind, package, value, const, reasons, reason_type)


# VirtualDisk (vdcondition)
VD_READY = _t(
    VD, "vdcondition", "Ready", "ReadyType", "ReadyReason",
    Reason("Ready", "Ready", P), Reason("Provisioning", "Provisioning", P),
    Reason("ProvisioningNotStarted", "ProvisioningNotStarted", T),
    Reason("WaitingForFirstConsumer", "WaitingForFirstConsumer", P),
    Reason("WaitForUserUpload", "WaitForUserUpload", N), Reason("Exporting", "Exporting", N),
    Reason("QuotaExceeded", "QuotaExceeded", C), Reason("ProvisioningFailed", "ProvisioningFailed", X),
    Reason("ProvisioningFailedTerminally", "", X, since="DVP main after v1.10.2"),
    Reason("StorageClassProvisionerMismatch", "", X, since="DVP v1.9.6"),
    Reason("PVCLost", "Lost", X), Reason("ImagePullFailed", "ImagePullFailed", X),
    Reason("DatasourceIsNotReady", "DatasourceIsNotReady", T),
    Reason("DatasourceIsNotFound", "DatasourceIsNotFound", X),
    Reason("StorageClassIsNotReady", "StorageClassIsNotReady", X),
)
VD_RESIZING = _t(
    VD, "vdcondition", "Resizing", "ResizingType", "",  # DVP types NotAvailable as a SnapshottingReason
    Reason("InProgress", "InProgress", P),
    # a grow the PVC refused (quota): "Disk resizing is not allowed: <the PVC's error>."; removed once grown
    Reason("NotAvailable", "ResizingNotAvailable", C),
)
VD_DATASOURCE_READY = _t(
    VD, "vdcondition", "DatasourceReady", "DatasourceReadyType", "DatasourceReadyReason",
    Reason("DatasourceReady", "DatasourceReady", P),
    Reason("ImageNotReady", "ImageNotReady", T), Reason("ClusterImageNotReady", "ClusterImageNotReady", T),
    Reason("ImageNotFound", "ImageNotFound", X), Reason("ClusterImageNotFound", "ClusterImageNotFound", X),
    Reason("VirtualDiskSnapshot", "VirtualDiskSnapshotNotReady", T),
    Reason("ContainerRegistrySecretNotFound", "ContainerRegistrySecretNotFound", X),
)
VD_STORAGE_CLASS_READY = _t(
    VD, "vdcondition", "StorageClassReady", "StorageClassReadyType", "StorageClassReadyReason",
    Reason("StorageClassReady", "StorageClassReady", P), Reason("StorageClassNotReady", "StorageClassNotReady", X),
)

# VirtualMachine (vmcondition)
VM_RUNNING = _t(
    VM, "vmcondition", "Running", "TypeRunning", "RunningReason",
    Reason("Running", "ReasonVirtualMachineRunning", P, old=("VirtualMachineRunning",)),
    Reason("NotRunning", "ReasonVirtualMachineNotRunning", P, old=("VirtualMachineNotRunning",)),
    # the virt-launcher pod cannot start: unschedulable (no node matches), a volume error
    Reason("PodNotStarted", "ReasonPodNotStarted", X),
    Reason("PodTerminating", "ReasonPodTerminating", P),
    Reason("PodNotFound", "ReasonPodNotFound", T, old=("PodNotExists",)),
    Reason("PodConditionMissing", "ReasonPodConditionMissing", T),
    Reason("GuestNotRunning", "ReasonGuestNotRunning", T),
    Reason("InternalVirtualMachineError", "ReasonInternalVirtualMachineError", X),
)
VM_CLASS_READY = _t(
    VM, "vmcondition", "VirtualMachineClassReady", "TypeClassReady", "ClassReadyReason",
    Reason("VirtualMachineClassReady", "ReasonClassReady", P),
    Reason("VirtualMachineClassNotReady", "ReasonClassNotReady", X),
)
VM_BLOCK_DEVICES_READY = _t(
    VM, "vmcondition", "BlockDevicesReady", "TypeBlockDevicesReady", "BlockDevicesReadyReason",
    Reason("BlockDevicesReady", "ReasonBlockDevicesReady", P),
    Reason("BlockDevicesNotReady", "ReasonBlockDevicesNotReady", T),
    Reason("WaitingForWaitForFirstConsumerBlockDevicesToBeReady",
           "ReasonWaitingForWaitForFirstConsumerBlockDevicesToBeReady", P),
    Reason("BlockDeviceLimitExceeded", "ReasonBlockDeviceLimitExceeded", C),
)
VM_PROVISIONING_READY = _t(
    VM, "vmcondition", "ProvisioningReady", "TypeProvisioningReady", "ProvisioningReadyReason",
    Reason("ProvisioningReady", "ReasonProvisioningReady", P),
    Reason("ProvisioningNotReady", "ReasonProvisioningNotReady", T),
)
VM_IP_ADDRESS_READY = _t(
    VM, "vmcondition", "VirtualMachineIPAddressReady", "TypeIPAddressReady", "IpAddressReadyReason",
    Reason("VirtualMachineIPAddressReady", "ReasonIPAddressReady", P),
    Reason("VirtualMachineIPAddressNotReady", "ReasonIPAddressNotReady", T),
    Reason("VirtualMachineIPAddressNotAssigned", "ReasonIPAddressNotAssigned", T),
    Reason("VirtualMachineIPAddressNotAvailable", "ReasonIPAddressNotAvailable", X),
)
VM_SIZING_POLICY_MATCHED = _t(
    VM, "vmcondition", "SizingPolicyMatched", "TypeSizingPolicyMatched", "SizingPolicyMatchedReason",
    Reason("SizingPolicyNotMatched", "ReasonSizingPolicyNotMatched", X),
    Reason("VirtualMachineClassNotFound", "ReasonVirtualMachineClassNotFound", X, old=("VirtalMachineClassNotExists",)),
    Reason("VirtualMachineClassTerminating", "ReasonVirtualMachineClassTerminating", X),
)
VM_AWAITING_RESTART = _t(
    VM, "vmcondition", "AwaitingRestartToApplyConfiguration", "TypeAwaitingRestartToApplyConfiguration",
    "AwaitingRestartToApplyConfigurationReason",
    Reason("ChangesPendingRestart", "ReasonChangesPendingRestart", P,
           old=("RestartAwaitingChangesExist", "RestartAwaitingVMClassChangesExist")),
    Reason("NoRestartRequired", "ReasonNoRestartRequired", P, old=("NoNeedRestart",)),
    Reason("UnexpectedState", "ReasonUnexpectedState", N),
)
VM_CONFIGURATION_APPLIED = _t(
    VM, "vmcondition", "ConfigurationApplied", "TypeConfigurationApplied", "ConfigurationAppliedReason",
    Reason("ConfigurationApplied", "ReasonConfigurationApplied", P),
    Reason("ConfigurationNotApplied", "ReasonConfigurationNotApplied", P),
)
VM_AGENT_READY = _t(
    VM, "vmcondition", "AgentReady", "TypeAgentReady", "AgentReadyReason",
    Reason("AgentReady", "ReasonAgentReady", P), Reason("AgentNotReady", "ReasonAgentNotReady", T),
)
VM_MIGRATABLE = _t(
    VM, "vmcondition", "Migratable", "TypeMigratable", "MigratableReason",
    Reason("VirtualMachineMigratable", "ReasonMigratable", P),
    Reason("VirtualMachineNonMigratable", "ReasonNonMigratable", X, old=("VirtualMachineNotMigratable",)),
    Reason("VirtualMachineDisksNotMigratable", "ReasonDisksNotMigratable", X),
    Reason("VirtualMachineDisksShouldBeMigrating", "ReasonDisksShouldBeMigrating", T),
    Reason("VirtualMachineHostDevicesNotMigratable", "ReasonHostDevicesNotMigratable", X),
)

# VirtualMachineBlockDeviceAttachment (vmbdacondition)
VMBDA_ATTACHED = _t(
    VMBDA, "vmbdacondition", "Attached", "AttachedType", "AttachedReason",
    Reason("Attached", "Attached", P), Reason("NotAttached", "NotAttached", T),
    Reason("AttachmentRequestSent", "AttachmentRequestSent", P), Reason("Conflict", "Conflict", X),
    Reason("DeviceNotAvailableOnNode", "DeviceNotAvailableOnNode", X),
)
VMBDA_VM_READY = _t(
    VMBDA, "vmbdacondition", "VirtualMachineReady", "VirtualMachineReadyType", "VirtualMachineReadyReason",
    Reason("VirtualMachineReady", "VirtualMachineReady", P),
    Reason("VirtualMachineNotReady", "VirtualMachineNotReady", T),
)
VMBDA_BLOCK_DEVICE_READY = _t(
    VMBDA, "vmbdacondition", "BlockDeviceReady", "BlockDeviceReadyType", "BlockDeviceReadyReason",
    Reason("BlockDeviceReady", "BlockDeviceReady", P), Reason("BlockDeviceNotReady", "BlockDeviceNotReady", T),
)
VMBDA_CAPACITY = _t(  # sic: the type's value ends in "Type"
    VMBDA, "vmbdacondition", "DiskAttachmentCapacityAvailableType", "DiskAttachmentCapacityAvailableType",
    "DiskAttachmentCapacityAvailableReason",
    Reason("CapacityAvailable", "CapacityAvailable", P), Reason("CapacityReached", "CapacityReached", C),
    Reason("CapacityUnknown", "CapacityUnknown", T),
)

# VirtualMachineOperation (vmopcondition)
VMOP_COMPLETED = _t(
    VMOP, "vmopcondition", "Completed", "TypeCompleted", "ReasonCompleted",
    Reason("OperationCompleted", "ReasonOperationCompleted", P),
    Reason("OperationFailed", "ReasonOperationFailed", X),
    Reason("VirtualMachineNotFound", "ReasonVirtualMachineNotFound", X),
    Reason("NotApplicableForVirtualMachineRunPolicy", "ReasonNotApplicableForRunPolicy", X),
    Reason("NotApplicableForVirtualMachinePhase", "ReasonNotApplicableForVMPhase", X),
    Reason("NotApplicableForLiveMigrationPolicy", "ReasonNotApplicableForLiveMigrationPolicy", X),
    Reason("NotReadyToBeExecuted", "ReasonNotReadyToBeExecuted", T),
    Reason("StartInProgress", "ReasonStartInProgress", P), Reason("StopInProgress", "ReasonStopInProgress", P),
    Reason("RestartInProgress", "ReasonRestartInProgress", P),
    Reason("RestoreInProgress", "ReasonRestoreInProgress", N), Reason("CloneInProgress", "ReasonCloneInProgress", N),
    Reason("MigrationPending", "ReasonMigrationPending", P),
    Reason("MigrationPrepareTarget", "ReasonMigrationPrepareTarget", P),
    Reason("MigrationTargetReady", "ReasonMigrationTargetReady", P),
    Reason("MigrationRunning", "ReasonMigrationRunning", P),
    Reason("DisksPreparing", "ReasonDisksPreparing", P), Reason("TargetScheduling", "ReasonTargetScheduling", P),
    Reason("TargetPreparing", "ReasonTargetPreparing", P), Reason("Syncing", "ReasonSyncing", P),
    Reason("SourceSuspended", "ReasonSourceSuspended", P), Reason("TargetResumed", "ReasonTargetResumed", P),
    Reason("WaitingForVirtualMachineToBeReadyToMigrate", "ReasonWaitingForVirtualMachineToBeReadyToMigrate", T),
    Reason("NotConverging", "ReasonNotConverging", T),
    Reason("TargetDiskError", "ReasonTargetDiskError", X),
    Reason("HotplugDisksNotShared", "ReasonHotplugDisksNotShared", X),
    Reason("Completed", "ReasonMigrationCompleted", P),
    Reason("TargetUnschedulable", "ReasonTargetUnschedulable", X),
    Reason("OtherMigrationInProgress", "ReasonOtherMigrationInProgress", T),
    Reason("QuotaExceeded", "ReasonQuotaExceeded", C),
    Reason("Aborted", "ReasonAborted", X), Reason("Failed", "ReasonFailed", X),
    Reason("Superseded", "", X, since="DVP v1.10"),
)
VMOP_SIGNAL_SENT = _t(
    VMOP, "vmopcondition", "SignalSent", "TypeSignalSent", "ReasonSignalSent",
    Reason("SignalSentSuccess", "ReasonSignalSentSuccess", P), Reason("SignalSentError", "ReasonSignalSentError", X),
)

# VirtualDiskSnapshot (vdscondition)
VDS_VIRTUAL_DISK_READY = _t(
    VDS, "vdscondition", "VirtualDiskReady", "VirtualDiskReadyType", "VirtualDiskReadyReason",
    Reason("VirtualDiskReady", "VirtualDiskReady", P),
    Reason("VirtualDiskNotReadyForSnapshotting", "VirtualDiskNotReadyForSnapshotting", T),
)
VDS_READY = _t(
    VDS, "vdscondition", "VirtualDiskSnapshotReady", "VirtualDiskSnapshotReadyType",
    "VirtualDiskSnapshotReadyReason",
    Reason("VirtualDiskSnapshotReady", "VirtualDiskSnapshotReady", P), Reason("Snapshotting", "Snapshotting", P),
    Reason("WaitingForTheVirtualDisk", "WaitingForTheVirtualDisk", T),
    Reason("FileSystemFreezing", "FileSystemFreezing", P), Reason("FileSystemUnfreezing", "FileSystemUnfreezing", P),
    Reason("PotentiallyInconsistent", "PotentiallyInconsistent", X), Reason("Lost", "VolumeSnapshotLost", X),
    Reason("VirtualDiskSnapshotFailed", "VirtualDiskSnapshotFailed", X),
)

# VirtualMachineIPAddress (vmipcondition), VirtualMachineIPAddressLease (vmiplcondition)
VMIP_BOUND = _t(
    VMIP, "vmipcondition", "Bound", "BoundType", "BoundReason",
    Reason("Bound", "Bound", P),
    # both while DVP sets the lease up and when the lease is another's: only the message tells (CONTRACT C22)
    Reason("VirtualMachineIPAddressLeaseNotReady", "VirtualMachineIPAddressLeaseNotReady", T),
    Reason("VirtualMachineIPAddressLeaseNotFound", "VirtualMachineIPAddressLeaseNotFound", T),  # requeued in 2 s
    Reason("VirtualMachineIPAddressIsOutOfTheValidRange", "VirtualMachineIPAddressIsOutOfTheValidRange", X),
    Reason("VirtualMachineIPAddressLeaseAlreadyExists", "VirtualMachineIPAddressLeaseAlreadyExists", X),
    Reason("VirtualMachineIPAddressLeaseLost", "VirtualMachineIPAddressLeaseLost", X),
)
VMIP_ATTACHED = _t(
    VMIP, "vmipcondition", "Attached", "AttachedType", "AttachedReason",
    Reason("Attached", "Attached", P), Reason("VirtualMachineNotFound", "VirtualMachineNotFound", N),
)
VMIPL_BOUND = _t(
    VMIPL, "vmiplcondition", "Bound", "BoundType", "BoundReason",
    Reason("Bound", "Bound", P), Reason("Released", "Released", N),
)

TYPES: tuple[ConditionType, ...] = (
    VD_READY, VD_RESIZING, VD_DATASOURCE_READY, VD_STORAGE_CLASS_READY,
    VM_RUNNING, VM_CLASS_READY, VM_BLOCK_DEVICES_READY, VM_PROVISIONING_READY, VM_IP_ADDRESS_READY,
    VM_SIZING_POLICY_MATCHED, VM_AWAITING_RESTART, VM_CONFIGURATION_APPLIED, VM_AGENT_READY, VM_MIGRATABLE,
    VMBDA_ATTACHED, VMBDA_VM_READY, VMBDA_BLOCK_DEVICE_READY, VMBDA_CAPACITY,
    VMOP_COMPLETED, VMOP_SIGNAL_SENT, VDS_VIRTUAL_DISK_READY, VDS_READY, VMIP_BOUND, VMIP_ATTACHED, VMIPL_BOUND,
)
# DVP's generic reason of a condition it cannot judge yet (the controller's conditions.ReasonUnknown, outside the api
# module); any type may carry it
UNKNOWN = "Unknown"


def renamed() -> dict[str, str]:
    """v1.0.0 spelling -> v1.8.0 spelling of every renamed reason in the table."""
    return {old: r.value for t in TYPES for r in t.reasons for old in r.old}


def spelled(reason: Reason, api_version: str) -> str:
    """The reason as a DVP of that API version writes it."""
    return reason.old[0] if api_version == OLD_API_VERSION and reason.old else reason.value


def reason_of(ctype: ConditionType, value: str) -> Reason:
    """The table's entry of a reason by its v1.8.0 spelling (a KeyError for a string DVP does not define)."""
    found = next((r for r in ctype.reasons if r.value == value), None)
    if found is None:
        raise KeyError(f"{ctype.kind} {ctype.value}: DVP defines no reason {value!r}")
    return found


def get(obj: Mapping[str, Any] | None, ctype: ConditionType) -> Mapping[str, Any] | None:
    return next((c for c in ((obj or {}).get("status") or {}).get("conditions") or []
                 if c.get("type") == ctype.value), None)


def is_reason(cond: Mapping[str, Any] | None, ctype: ConditionType, value: str, status: str | None = None) -> bool:
    """The condition is of that type, with that reason in either spelling (and that status, when given)."""
    if not cond or cond.get("type") != ctype.value or (status is not None and cond.get("status") != status):
        return False
    return str(cond.get("reason") or "") in reason_of(ctype, value).spellings


def meaning(cond: Mapping[str, Any] | None, ctype: ConditionType) -> Meaning | None:
    """What the condition's reason means for us; None for a reason the table does not know (Unknown included)."""
    if not cond or cond.get("type") != ctype.value:
        return None
    found = ctype.reason(str(cond.get("reason") or ""))
    return found.meaning if found else None


def reasons_meaning(ctype: ConditionType, what: Meaning) -> frozenset[str]:
    """Every spelling of the type's reasons with that meaning."""
    return frozenset(s for r in ctype.reasons if r.meaning == what for s in r.spellings)

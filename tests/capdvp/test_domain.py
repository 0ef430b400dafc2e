# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Pure rules: names, spec parsing, quantities, phases, update classification."""

from __future__ import annotations

import pytest
from capdvp.domain import manifests, names, phase, updates
from capdvp.domain.machine_spec import Disk, ImageRef, SpecError, parse_spec

from testkit.capdvp.world import MACHINE_SPEC


def test_names():
    assert names.boot_disk_name("w-1") == "w-1-boot"
    assert names.additional_disk_name("w-1", 3) == "w-1-additional-disk-3"
    assert names.cloud_init_secret_name("w-1") == "cloud-init-w-1"
    assert names.vmop_name("w-1", "Stop", 7) == "w-1-stop-g7"
    assert names.provider_id("w-1") == "dvp://w-1"
    assert names.parse_provider_id("dvp://w-1") == "w-1"
    assert names.parse_provider_id("aws:///eu/i-1") is None
    assert names.orphaned_disk_annotation("w-1-boot") == "dvp.deckhouse.io/orphaned-disk-df84"


def test_spec_defaults():
    spec = parse_spec({"vmClassName": "generic", "rootDiskSize": "20Gi", "bootDiskImageRef": {"name": "img"}})
    assert spec.cores == 4 and spec.core_fraction == "" and spec.memory == "8Gi"  # none: the VM class's default
    assert spec.image == ImageRef("VirtualImage", "img")
    assert (spec.bootloader, spec.run_policy, spec.live_migration_policy) == (
        "EFI", "AlwaysOnUnlessStoppedManually", "")
    assert spec.additional_disks == ()


def test_a_vm_names_no_core_fraction_unless_the_machine_does():
    # DVP then applies the VirtualMachineClass's sizing policy default (100% when it names none)
    base = {"vmClassName": "generic", "rootDiskSize": "20Gi", "bootDiskImageRef": {"name": "img"}}
    assert manifests.cpu(parse_spec(base)) == {"cores": 4}
    assert manifests.cpu(parse_spec({**base, "cpu": {"cores": 2, "cpuFraction": "50%"}})) == {
        "cores": 2, "coreFraction": "50%"}


@pytest.mark.parametrize(("patch", "message"), [
    ({"vmClassName": ""}, "spec.vmClassName: required"),
    ({"vmClassName": "Big_One"}, "spec.vmClassName: 'Big_One' is not a valid object name"),
    ({"cpu": {"cores": 0}}, "spec.cpu.cores: must be an integer >= 1, got 0"),
    ({"cpu": {"cores": 2, "cpuFraction": "0%"}}, "spec.cpu.cpuFraction: '0%' must be a percentage from 1% to 100%"),
    ({"memory": "8GB"}, "spec.memory: '8GB' is not a quantity"),
    ({"rootDiskSize": "0"}, "spec.rootDiskSize: must be greater than zero"),
    ({"rootDiskSize": "-1Gi"}, "spec.rootDiskSize: must be greater than zero"),
    ({"rootDiskSize": "1.2.3Gi"}, "spec.rootDiskSize: '1.2.3Gi' is not a quantity"),
    ({"bootDiskImageRef": {"kind": "VirtualImage"}}, "spec.bootDiskImageRef.name: required"),
    ({"bootDiskImageRef": {"kind": "Http", "name": "x"}},
     "spec.bootDiskImageRef.kind: 'Http' is not one of ClusterVirtualImage, VirtualImage, VirtualDiskSnapshot"),
    ({"bootloader": "UEFI"}, "spec.bootloader: 'UEFI' is not one of BIOS, EFI, EFIWithSecureBoot"),
    ({"additionalDisks": [{"storageClass": "x"}]}, "spec.additionalDisks[0].size: required"),
    ({"additionalDisks": [{"size": "1Gi"}] * 15}, "spec.additionalDisks: at most 14 disks, got 15"),
    ({"liveMigrationPolicy": "Always"},
     "spec.liveMigrationPolicy: 'Always' is not one of AlwaysSafe, PreferSafe, AlwaysForced, PreferForced"),
    # DVP's enum has no Manual or Never (they appear only in a Go marker upstream; DVP refuses them).
    ({"liveMigrationPolicy": "Manual"},
     "spec.liveMigrationPolicy: 'Manual' is not one of AlwaysSafe, PreferSafe, AlwaysForced, PreferForced"),
    ({"additionalLabels": {"vm.kubevirt.io/name": "x"}},
     "spec.additionalLabels: key 'vm.kubevirt.io/name' contains kubevirt.io, which DVP reserves"),
    ({"additionalAnnotations": {"kubevirt.io/allow-pod-bridge-network-live-migration": ""}},
     "spec.additionalAnnotations: key 'kubevirt.io/allow-pod-bridge-network-live-migration' contains kubevirt.io, "
     "which DVP reserves"),
    ({"additionalLabels": {"team": "t" * 64}},
     f"spec.additionalLabels: value '{'t' * 64}' of 'team' is not a label value (at most 63 of [A-Za-z0-9-_.], "
     "alphanumeric ends)"),
    ({"liveMigrationPolicy": "Never"},
     "spec.liveMigrationPolicy: 'Never' is not one of AlwaysSafe, PreferSafe, AlwaysForced, PreferForced"),
])
def test_spec_errors_name_the_field(patch, message):
    with pytest.raises(SpecError) as err:
        parse_spec({**MACHINE_SPEC, **patch})
    assert str(err.value) == message


def _vm(phase_, **spec):
    return {"metadata": {"name": "w-1"}, "spec": {"virtualMachineClassName": "generic", "cpu": {"cores": 2},
                                                  "memory": {"size": "4Gi"}, **spec},
            "status": {"phase": phase_, "ipAddress": "10.0.0.9"}}


@pytest.mark.parametrize(("vm_phase", "ready", "reason"), [
    ("Running", True, "VMRunning"), ("Migrating", True, "VMRunning"), ("Stopped", False, "VMInStoppedState"),
    ("Pending", False, "VMNotReady"), ("Starting", False, "VMNotReady"), ("Stopping", False, "VMNotReady"),
    ("Terminating", False, "VMNotReady"), ("Pause", False, "VMNotReady"),
])
def test_phase_outcomes(vm_phase, ready, reason):
    out = phase.observe(_vm(vm_phase))
    assert (out.ready, out.condition.reason) == (ready, reason)
    assert out.ip == ("10.0.0.9" if ready else "")


def test_degraded_is_not_ready_and_names_the_sizing():
    out = phase.observe(_vm("Degraded"))
    assert (out.ready, out.condition.status, out.condition.reason) == (False, "False", "VMDegraded")
    assert out.condition.message == ("VirtualMachine w-1 is Degraded (class 'generic', 2 cores, memory 4Gi); check "
                                     "the VirtualMachineClass sizing policy and DVP events")


def _dvp_cond(ctype, reason, message=""):
    return {"type": ctype, "status": "False", "reason": reason, "message": message}


def _disk(name, *conds):
    return {"kind": "VirtualDisk", "metadata": {"name": name}, "status": {"phase": "Pending",
                                                                           "conditions": list(conds)}}


PENDING_CAUSES = [
    ("class gone after creation", [_dvp_cond("VirtualMachineClassReady", "VirtualMachineClassNotReady",
                                             'VirtualMachineClass "generic" not found')], [],
     ("VirtualMachineClassMissing", "VirtualMachine w-1 waits for VirtualMachineClass 'generic': "
                                    'VirtualMachineClass "generic" not found')),
    ("disk over quota", [], [_disk("w-1-boot", _dvp_cond("Ready", "QuotaExceeded", "exceeded quota: storage"))],
     ("DiskQuotaExceeded", "VirtualDisk w-1-boot of VirtualMachine w-1 waits for DVP quota: exceeded quota: storage")),
    ("image gone", [], [_disk("w-1-boot", _dvp_cond("Ready", "DatasourceIsNotFound", "image not found"))],
     ("BootImageMissing", "VirtualDisk w-1-boot of VirtualMachine w-1 waits for its image: image not found")),
    ("class ready, disk provisioning",
     [{"type": "VirtualMachineClassReady", "status": "True", "reason": "VirtualMachineClassReady"}],
     [_disk("w-1-boot", _dvp_cond("Ready", "Provisioning"))],
     ("VMNotReady", "VirtualMachine w-1 is Pending (VirtualDisk w-1-boot: Pending)")),
    ("image not ready yet", [], [_disk("w-1-boot", _dvp_cond("Ready", "DatasourceIsNotReady", "image is Pending"))],
     ("BootImageNotReady", "VirtualDisk w-1-boot of VirtualMachine w-1 waits for its image to be ready: "
                           "image is Pending")),
    ("disk class gone", [], [_disk("w-1-boot", _dvp_cond("Ready", "StorageClassIsNotReady", 'no "fast"'))],
     ("DiskNotProvisionable", 'VirtualDisk w-1-boot of VirtualMachine w-1 cannot be provisioned '
                              '(Ready=StorageClassIsNotReady): no "fast"')),
    ("a newer DVP's terminal disk reason", [],
     [_disk("w-1-boot", _dvp_cond("Ready", "StorageClassProvisionerMismatch", "provisioner differs"))],
     ("DiskNotProvisionable", "VirtualDisk w-1-boot of VirtualMachine w-1 cannot be provisioned "
                              "(Ready=StorageClassProvisionerMismatch): provisioner differs")),
    ("unschedulable", [_dvp_cond("Running", "PodNotStarted", "Could not schedule the virtual machine: 0/3 nodes are "
                                 "available: 3 node(s) didn't match Pod's node affinity/selector.")], [],
     ("VMPodNotStarted", "VirtualMachine w-1 cannot be started by DVP (Running=PodNotStarted): Could not schedule the "
                         "virtual machine: 0/3 nodes are available: 3 node(s) didn't match Pod's node "
                         "affinity/selector.")),
    ("class changed under it", [_dvp_cond("SizingPolicyMatched", "SizingPolicyNotMatched", "4 cores not allowed")],
     [], ("SizingPolicyNotMatched", "VirtualMachine w-1 does not fit its VirtualMachineClass "
                                    "(SizingPolicyMatched=SizingPolicyNotMatched): 4 cores not allowed")),
    ("too many devices", [_dvp_cond("BlockDevicesReady", "BlockDeviceLimitExceeded", "17 > 16")], [],
     ("BlockDeviceLimitExceeded", "VirtualMachine w-1 has more block devices than DVP attaches "
                                  "(BlockDevicesReady=BlockDeviceLimitExceeded): 17 > 16")),
    ("address taken", [_dvp_cond("VirtualMachineIPAddressReady", "VirtualMachineIPAddressNotAvailable", "in use")],
     [], ("AddressNotAvailable", "VirtualMachine w-1 cannot have its address "
                                 "(VirtualMachineIPAddressReady=VirtualMachineIPAddressNotAvailable): in use")),
    ("devices still coming, address being bound: no cause",
     [_dvp_cond("BlockDevicesReady", "BlockDevicesNotReady"),
      _dvp_cond("VirtualMachineIPAddressReady", "VirtualMachineIPAddressNotReady")], [],
     ("VMNotReady", "VirtualMachine w-1 is Pending")),
]


@pytest.mark.parametrize(("case", "vm_conds", "owned", "expected"), PENDING_CAUSES, ids=[p[0] for p in PENDING_CAUSES])
def test_a_pending_vm_reports_the_cause_dvp_names(case, vm_conds, owned, expected):
    vm = _vm("Pending")
    vm["status"]["conditions"] = vm_conds
    out = phase.observe(vm, owned)
    assert (out.ready, out.condition.status, out.condition.reason, out.condition.message) == (False, "False",
                                                                                              *expected)


ACTUAL = updates.Actual(vm_class="generic", cores=2, core_fraction="50%", memory="4Gi", bootloader="EFI",
                        run_policy="AlwaysOnUnlessStoppedManually", live_migration_policy="PreferSafe",
                        root_size="20Gi", root_storage_class="fast",
                        image=ImageRef("ClusterVirtualImage", "ubuntu-24-04"),
                        additional_disks=(Disk("10Gi", "slow"),))


def _plan(**patch):
    return updates.classify(parse_spec({**MACHINE_SPEC, **patch}), "PreferSafe", ACTUAL)


def test_no_change():
    assert _plan() == updates.Plan(updates.Kind.NONE)
    assert _plan(memory="4096Mi") == updates.Plan(updates.Kind.NONE)
    # the shared quantity reads exponents and fractions as apimachinery does
    assert _plan(memory="4294967296e0") == _plan(memory=".00390625Ti") == updates.Plan(updates.Kind.NONE)


@pytest.mark.parametrize(("patch", "kind", "changes"), [
    ({"runPolicy": "AlwaysOn"}, updates.Kind.HOT, ("runPolicy",)),
    ({"additionalDisks": [{"size": "10Gi", "storageClass": "slow"}, {"size": "1Gi"}]}, updates.Kind.HOT,
     ("additionalDisks",)),
    ({"cpu": {"cores": 8}}, updates.Kind.WARM, ("cpu.cores",)),  # no fraction named: the VM keeps DVP's default
    ({"cpu": {"cores": 2, "cpuFraction": "100%"}}, updates.Kind.WARM, ("cpu.cpuFraction",)),
    ({"memory": "16Gi", "runPolicy": "AlwaysOn"}, updates.Kind.WARM, ("memory", "runPolicy")),
    ({"vmClassName": "big"}, updates.Kind.WARM, ("vmClassName",)),
    ({"rootDiskSize": "40Gi"}, updates.Kind.WARM, ("rootDiskSize",)),
    ({"rootDiskSize": "10Gi"}, updates.Kind.RECREATE, ("rootDiskSize",)),
    ({"bootloader": "BIOS"}, updates.Kind.RECREATE, ("bootloader",)),
    ({"bootDiskImageRef": {"kind": "VirtualImage", "name": "ubuntu-24-04"}}, updates.Kind.RECREATE,
     ("bootDiskImageRef",)),
    ({"rootDiskStorageClass": "other"}, updates.Kind.RECREATE, ("rootDiskStorageClass",)),
    ({"additionalDisks": []}, updates.Kind.RECREATE, ("additionalDisks",)),
    ({"additionalDisks": [{"size": "20Gi", "storageClass": "slow"}]}, updates.Kind.RECREATE,
     ("additionalDisks[0]",)),
])
def test_update_classification(patch, kind, changes):
    plan = _plan(**patch)
    assert (plan.kind, plan.changes) == (kind, changes)


def test_new_disk_indexes():
    plan = _plan(additionalDisks=[{"size": "10Gi", "storageClass": "slow"}, {"size": "1Gi"}, {"size": "2Gi"}])
    assert plan.new_disks == (1, 2)


PLACEMENT = {
    "additionalLabels": {"team": "a", "dvp.deckhouse.io/cluster-uuid": "forged"},
    "additionalAnnotations": {"note": "x"},
    "nodeSelector": {"zone": "a"},
    "priorityClassName": "high",
    "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 30},
                    {"operator": "Exists"}],
}


def test_placement_reaches_the_virtual_machine():
    from capdvp.domain import manifests, ownership

    spec = parse_spec({**MACHINE_SPEC, **PLACEMENT})
    vm = manifests.virtual_machine("w-1", spec, "uuid-1", False, {"team": "module", "env": "prod"})
    # Class labels win over module-wide ones, ownership labels over both: a class cannot forge ownership.
    assert vm["metadata"]["labels"] == {"env": "prod", "team": "a", **ownership.machine_labels("uuid-1", "w-1")}
    assert vm["metadata"]["annotations"] == {"note": "x"}
    assert vm["spec"]["nodeSelector"] == {"zone": "a"}
    assert vm["spec"]["priorityClassName"] == "high"
    assert vm["spec"]["tolerations"] == [
        {"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 30},
        {"operator": "Exists"}]


def test_no_placement_adds_nothing():
    from capdvp.domain import manifests

    vm = manifests.virtual_machine("w-1", parse_spec(MACHINE_SPEC), "uuid-1", False)
    assert "annotations" not in vm["metadata"]
    assert not {"nodeSelector", "tolerations", "priorityClassName"} & set(vm["spec"])


@pytest.mark.parametrize(("patch", "message"), [
    ({"nodeSelector": ["zone"]}, "spec.nodeSelector: must be a map of strings"),
    ({"additionalLabels": {"n": 1}}, "spec.additionalLabels.n: must be a string, got int"),
    ({"tolerations": {"key": "k"}}, "spec.tolerations: must be a list"),
    ({"tolerations": [{"operator": "In"}]}, "spec.tolerations[0].operator: 'In' is not one of Exists, Equal"),
    ({"tolerations": [{"effect": "Evict"}]},
     "spec.tolerations[0].effect: 'Evict' is not one of NoSchedule, PreferNoSchedule, NoExecute"),
    ({"tolerations": [{"tolerationSeconds": "30"}]}, "spec.tolerations[0].tolerationSeconds: must be an integer, "
                                                     "got '30'"),
    ({"priorityClassName": 5}, "spec.priorityClassName: must be a string, got int"),
])
def test_placement_errors_name_the_field(patch, message):
    with pytest.raises(SpecError) as err:
        parse_spec({**MACHINE_SPEC, **patch})
    assert str(err.value) == message

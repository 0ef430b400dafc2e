# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP's schema rules through the real DVP kube-apiserver (sim/CONTRACT.md, "Schema"): the API server
itself refuses with 422 Invalid, naming the field."""

from __future__ import annotations

import pytest
from dvp_common.dvp import resources as R
from dvp_common.kube import Invalid

from sim.builders import disk, vm, vmop


def invalid(call, *args) -> Invalid:
    with pytest.raises(Invalid) as info:
        call(*args)
    assert (info.value.status, info.value.reason) == (422, "Invalid")
    return info.value


def with_spec(name: str, **fields) -> dict:
    body = vm(name, ["d"])
    body["spec"].update(fields)
    return body


@pytest.mark.parametrize("policy", ["Manual", "Never"])
def test_live_migration_policy_outside_dvps_enum_is_refused(dvp, ns, policy):
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, with_spec("lmp", liveMigrationPolicy=policy), ns)
    assert (f'spec.liveMigrationPolicy: Unsupported value: "{policy}": supported values: "AlwaysSafe", "PreferSafe", '
            '"AlwaysForced", "PreferForced"') in err.message


def test_every_live_migration_policy_of_dvp_is_admitted_and_prefer_safe_is_the_default(dvp, ns):
    for i, policy in enumerate(("AlwaysSafe", "PreferSafe", "AlwaysForced", "PreferForced")):
        made = dvp.create(R.VIRTUAL_MACHINE, with_spec(f"lmp-{i}", liveMigrationPolicy=policy), ns)
        assert made["spec"]["liveMigrationPolicy"] == policy
    assert dvp.create(R.VIRTUAL_MACHINE, vm("lmp-default", ["d"]), ns)["spec"]["liveMigrationPolicy"] == "PreferSafe"


@pytest.mark.parametrize(("field", "value", "supported"), [
    ("runPolicy", "Always", '"AlwaysOn", "AlwaysOff", "Manual", "AlwaysOnUnlessStoppedManually"'),
    ("bootloader", "UEFI", '"BIOS", "EFI", "EFIWithSecureBoot"'),
    ("osType", "Linux", '"Windows", "Generic", "Legacy"'),
])
def test_vm_enums_are_dvps(dvp, ns, field, value, supported):
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, with_spec("enum", **{field: value}), ns)
    assert f'spec.{field}: Unsupported value: "{value}": supported values: {supported}' in err.message


def test_integer_memory_size_is_refused_dvp_wants_a_string(dvp, ns):
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, with_spec("int-mem", memory={"size": 8589934592}), ns)
    assert 'spec.memory.size: Invalid value: "integer": spec.memory.size in body must be of type string' in err.message


@pytest.mark.parametrize("fraction", ["0%", "101%", "50", "Half"])
def test_core_fraction_is_auto_or_a_percentage_from_1_to_100(dvp, ns, fraction):
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, with_spec("frac", cpu={"cores": 1, "coreFraction": fraction}), ns)
    assert "spec.cpu.coreFraction" in err.message and "should match '^(Auto|(100|[1-9][0-9]?)%)$'" in err.message


def test_more_than_sixteen_block_devices_are_refused(dvp, ns):
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, vm("too-many", [f"d{i}" for i in range(17)]), ns)
    assert "spec.blockDeviceRefs: Too many: 17: must have at most 16 items" in err.message


def test_required_vm_fields(dvp, ns):
    body = vm("bare", ["d"])
    del body["spec"]["memory"], body["spec"]["virtualMachineClassName"]
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, body, ns)
    assert "spec.memory: Required value" in err.message
    assert "spec.virtualMachineClassName: Required value" in err.message


def test_gpus_are_part_of_the_vm_api(dvp, ns):
    made = dvp.create(R.VIRTUAL_MACHINE, with_spec("gpu", gpus=[{"gpuClassName": "a100"}]), ns)
    assert made["spec"]["gpus"] == [{"gpuClassName": "a100"}]
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, with_spec("gpu-bad", gpus=[{"gpuClassName": "A100"}]), ns)
    assert "spec.gpus[0].gpuClassName" in err.message


def test_inline_user_data_is_limited_to_2048_bytes(dvp, ns):
    body = with_spec("ud", provisioning={"type": "UserData", "userData": "x" * 2049})
    err = invalid(dvp.create, R.VIRTUAL_MACHINE, body, ns)
    # the API server echoes the value, so the rule's message lies beyond the message our client keeps
    assert err.message.startswith('VirtualMachine.virtualization.deckhouse.io "ud" is invalid: '
                                  'spec.provisioning.userData: Invalid value: "xxx')


def test_label_values_are_at_most_63_characters(dvp, ns):
    body = disk("long-label")
    body["metadata"]["labels"] = {"virtualDiskName": "x" * 64}
    err = invalid(dvp.create, R.VIRTUAL_DISK, body, ns)
    assert f'metadata.labels: Invalid value: "{"x" * 64}": must be no more than 63 bytes' in err.message


def test_operation_spec_is_immutable_and_start_cannot_be_forced(dvp, ns):
    dvp.create(R.VIRTUAL_MACHINE_OPERATION, vmop("op-fixed", "some-vm", "Stop"), ns)
    err = invalid(dvp.patch, R.VIRTUAL_MACHINE_OPERATION, "op-fixed", {"spec": {"force": True}}, ns)
    assert "spec: Invalid value: .spec is immutable" in err.message
    forced = vmop("op-forced", "some-vm", "Start")
    forced["spec"]["force"] = True
    err = invalid(dvp.create, R.VIRTUAL_MACHINE_OPERATION, forced, ns)
    assert "The `Start` operation cannot be performed forcibly." in err.message


def test_operation_type_is_dvps(dvp, ns):
    err = invalid(dvp.create, R.VIRTUAL_MACHINE_OPERATION, vmop("op-odd", "some-vm", "Pause"), ns)
    assert 'spec.type: Unsupported value: "Pause"' in err.message


def test_disk_data_source_takes_only_the_field_its_type_names(dvp, ns):
    body = disk("two-sources", None, source=("ClusterVirtualImage", "ubuntu"))
    body["spec"]["dataSource"]["http"] = {"url": "https://example.invalid/image.qcow2"}
    err = invalid(dvp.create, R.VIRTUAL_DISK, body, ns)
    assert "spec.dataSource: Invalid value: ObjectRef requires objectRef and cannot have HTTP or ContainerImage." \
        in err.message


def test_disk_size_is_an_int_or_string_quantity(dvp, ns):
    made = dvp.create(R.VIRTUAL_DISK, disk("int-size", size=1073741824), ns)  # type: ignore[arg-type]
    assert made["spec"]["persistentVolumeClaim"]["size"] == 1073741824
    err = invalid(dvp.create, R.VIRTUAL_DISK, disk("bad-size", size="ten gigs"), ns)
    assert "spec.persistentVolumeClaim.size" in err.message

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP objects capdvp and the CSI driver build, across a matrix of inputs (names up to the limits, every enum
value, integer and string quantities), are accepted by the DVP API as written.

They are built by the components' own pure builders (capdvp.domain.manifests from a parsed DeckhouseMachine spec,
dvp_csi.dvp.objects with the driver's names) and created in one project namespace, with no simulator running, so
only the schema and the admission webhooks judge them: the harness's DVP server (our CRDs, which
test_real_schema_facts.py ties to DVP's real schema, and the simulator's webhooks), or with CPDVP_DVP_CRDS a
kube-apiserver loaded with DVP's real CRDs (testkit/schema_accepts.py)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from capdvp.domain import manifests
from capdvp.domain.machine_spec import BOOTLOADERS, IMAGE_KINDS, LIVE_MIGRATION_POLICIES, RUN_POLICIES, parse_spec
from dvp_common.dvp import labels as L
from dvp_common.dvp import resources as R
from dvp_common.kube.resources import SECRET
from dvp_common.quantity import format_bytes
from dvp_csi.access import Dvp
from dvp_csi.domain import labels as csi_labels
from dvp_csi.domain import names as csi_names

from sim import seed
from testkit import schema_accepts

UUID = "0e3d8b6a-8f1e-4c55-9d2a-3a4b5c6d7e8f"
NAME_LENGTHS = (1, 45, 46, 58, 59, 63)  # 46+: a disk name no longer fits a label value as is; 59+: the boot disk's
MEMORY = ("4Gi", 4294967296, "4096Mi")  # a DVPInstanceClass may give an integer; DVP wants a string
DISK_SIZES = (10737418240, "10Gi", "10G")
ADDITIONAL = (0, 1, 14)  # 14: the most a machine may have (16 block devices with the boot disk and a CSI volume)
CASES = 12


def machine_case(i: int) -> tuple[str, dict[str, Any], bool]:
    length = NAME_LENGTHS[i % len(NAME_LENGTHS)]
    name = "m" + "x" * (length - 1)
    spec: dict[str, Any] = {
        "vmClassName": "generic", "cpu": {"cores": 2, "cpuFraction": ("5%", "100%")[i % 2]},
        "memory": MEMORY[i % len(MEMORY)], "rootDiskSize": DISK_SIZES[i % len(DISK_SIZES)],
        "rootDiskStorageClass": "matrix-sc",
        "bootDiskImageRef": {"kind": IMAGE_KINDS[i % len(IMAGE_KINDS)], "name": "matrix-image"},
        "bootloader": BOOTLOADERS[i % len(BOOTLOADERS)], "runPolicy": RUN_POLICIES[i % len(RUN_POLICIES)],
        "additionalDisks": [{"size": DISK_SIZES[(i + d) % len(DISK_SIZES)], "storageClass": "matrix-sc"}
                            for d in range(ADDITIONAL[i % len(ADDITIONAL)])],
    }
    policies = (*LIVE_MIGRATION_POLICIES, None)
    if policies[i % len(policies)]:
        spec["liveMigrationPolicy"] = policies[i % len(policies)]
    if i % 3 == 0:  # a DVPInstanceClass's nodeSelectorTerms: the VM's required node affinity
        spec["nodeSelectorTerms"] = [
            {"matchExpressions": [{"key": "node.example.com/pool", "operator": "In", "values": ["a"]},
                                  {"key": "gen", "operator": "Gt", "values": ["3"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["dvp-node-3"]}]}]
    return name, spec, i % 2 == 0


def test_the_matrix_covers_every_value():
    cases = [machine_case(i) for i in range(CASES)]
    assert {len(name) for name, _, _ in cases} == set(NAME_LENGTHS)
    for key, values in (("runPolicy", RUN_POLICIES), ("bootloader", BOOTLOADERS)):
        assert {spec[key] for _, spec, _ in cases} == set(values)
    assert {spec.get("liveMigrationPolicy") for _, spec, _ in cases} == {*LIVE_MIGRATION_POLICIES, None}
    assert {spec["bootDiskImageRef"]["kind"] for _, spec, _ in cases} == set(IMAGE_KINDS)
    assert {repr(spec["memory"]) for _, spec, _ in cases} == {repr(m) for m in MEMORY}
    assert {len(spec["additionalDisks"]) for _, spec, _ in cases} == set(ADDITIONAL)
    assert {cp for _, _, cp in cases} == {True, False}
    assert {"nodeSelectorTerms" in spec for _, spec, _ in cases} == {True, False}


RES = {"VirtualMachine": R.VIRTUAL_MACHINE, "VirtualDisk": R.VIRTUAL_DISK, "Secret": SECRET,
       "VirtualMachineBlockDeviceAttachment": R.VMBDA, "VirtualMachineOperation": R.VIRTUAL_MACHINE_OPERATION,
       "VirtualDiskSnapshot": R.VIRTUAL_DISK_SNAPSHOT}


@pytest.fixture(scope="module")
def schema_api(control_plane, dvp_api):
    return schema_accepts.schema_server(control_plane, dvp_api, seed=lambda client: seed.vm_class(client, "generic"))


def create(client, ns: str, body: dict) -> dict:
    return schema_accepts.create_as_written(client, RES[body["kind"]], ns, body)


@pytest.mark.parametrize("case", range(CASES))
def test_capdvp_objects_are_accepted(schema_api, case):
    machine, raw, control_plane = machine_case(case)
    spec = parse_spec(raw)
    ns = schema_api.create_namespace("matrix-capdvp")
    client = schema_api.client()
    try:
        vm = create(client, ns, manifests.virtual_machine(machine, spec, UUID, control_plane))
        assert vm["spec"]["memory"]["size"] == str(spec.memory)
        for body in manifests.owned_objects(machine, spec, UUID, vm, b"#cloud-config\n"):
            create(client, ns, body)
        for disk in manifests.disk_names(machine, spec)[1:]:
            create(client, ns, manifests.vmbda(machine, disk, UUID, vm))
        for generation, op in enumerate(("Stop", "Start", "Restart"), start=1):
            create(client, ns, manifests.vmop(machine, op, generation, UUID, vm))
    finally:
        client.close()


@pytest.mark.parametrize(("csi_name", "node", "size"), [
    ("pvc-6a1f0c52-8a7e-4e8e-9d3b-2f1c0b9a8e7d", "n", 1 << 30),
    ("pvc-" + "a" * 59, "n" * 63, (1 << 30) + 1),  # a CSI name at the DNS label limit, a node name at 63
    ("Some_CSI.name/that-is-not-a-label" * 4, "worker-0", 10 * 10**9),  # hashed into an object name
])
def test_csi_objects_are_accepted(schema_api, csi_name, node, size):
    ns = schema_api.create_namespace("matrix-csi")
    client = schema_api.client()
    try:
        dvp = Dvp.over(client, ns, UUID)  # the driver's own kinds build the bodies it sends
        name = csi_names.object_name(csi_name, "pvc")
        for source in (None, *itertools.product(("ClusterVirtualImage", "VirtualImage", "VirtualDiskSnapshot"),
                                               ("src",))):
            disk = name if source is None else L.short_name(f"{name}-{source[0].lower()}")
            ref = {"type": "ObjectRef", "objectRef": {"kind": source[0], "name": source[1]}} if source else None
            create(client, ns, dvp.disks.new(disk, format_bytes(size), "matrix-sc", data_source=ref,
                                             annotations={csi_labels.CSI_NAME_ANNOTATION: csi_name}))
        create(client, ns, dvp.attachments.new(name, node, node))
        snap = csi_names.object_name(csi_name.replace("pvc", "snapshot"), "snapshot")
        create(client, ns, dvp.snapshots.new(snap, name, True, annotations={
            csi_labels.CSI_NAME_ANNOTATION: csi_name, csi_labels.SIZE_ANNOTATION: str(size)}))
        create(client, ns, dvp.snapshots.new(csi_names.clone_snapshot_name(name), name, False,
                                             {csi_labels.CLONE_FOR_LABEL: name},
                                             {csi_labels.SIZE_ANNOTATION: str(size)}))
    finally:
        client.close()

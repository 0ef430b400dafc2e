# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""For the kinds DVP generates its CRDs for, the DVP API serves exactly what the pinned controller-gen generates from
the pinned DVP API module (tools/fetch-upstream); sim/crds holds only the kinds DVP writes by hand and the parent's
non-DVP kinds. One rule says where each comes from: sim.dvp_crds.dvp_crd_files()."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from dvp_common.kube.resources import CRD

from sim import dvp_crds
from sim.dvp_crds import CrdError, dvp_crd_files
from sim.memory_api import schema

TOP = Path(__file__).resolve().parents[2]
DVP_API = "github.com/deckhouse/virtualization/api"
GENERATED = {"clustervirtualimages": "ClusterVirtualImage", "virtualdisks": "VirtualDisk",
             "virtualimages": "VirtualImage", "virtualmachineblockdeviceattachments":
                 "VirtualMachineBlockDeviceAttachment", "virtualmachineclasses": "VirtualMachineClass",
             "virtualmachineoperations": "VirtualMachineOperation"}
HAND_WRITTEN = {"VirtualMachine", "VirtualMachineIPAddress", "VirtualMachineIPAddressLease", "VirtualDiskSnapshot",
                "ServiceWithHealthchecks", "ModuleConfig"}


def go(*args: str) -> str:
    if shutil.which("go") is None:
        pytest.fail("Go is not on PATH: install Go >= 1.26 (DVP's API module comes through the Go module proxy)")
    res = subprocess.run(["go", *args], cwd=TOP / "tools" / "upstream", capture_output=True, text=True, timeout=600,
                         env={**os.environ, "GOFLAGS": "-mod=readonly"})
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> dict[str, bytes]:
    """The six CRDs generated now, by the pinned controller-gen, from the pinned module (its go.sum hash checked)."""
    controller_gen = TOP / ".bin" / "controller-gen"
    if not controller_gen.exists():
        pytest.fail(f"{controller_gen} is missing: run `make upstream` (it builds tools/controller-gen)")
    version = json.loads(go("list", "-m", "-json", DVP_API))["Version"]
    info = json.loads(go("mod", "download", "-json", f"{DVP_API}@{version}"))
    assert f"{DVP_API} {version} {info['Sum']}" in (TOP / "tools" / "upstream" / "go.sum").read_text()
    out = tmp_path_factory.mktemp("controller-gen")
    res = subprocess.run([str(controller_gen), "crd", "paths=./core/v1alpha2/...;./core/v1alpha3/...",
                          f"output:crd:dir={out}"], cwd=info["Dir"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    return {plural: (out / f"virtualization.deckhouse.io_{plural}.yaml").read_bytes() for plural in GENERATED}


def served() -> dict[str, Path]:
    return {p.name.removesuffix(".yaml"): p for p in dvp_crd_files()}


def storage_schema(doc: dict) -> dict:
    return next(v for v in doc["spec"]["versions"] if v.get("storage"))["schema"]["openAPIV3Schema"]


def test_the_loader_gives_the_generated_crds_byte_for_byte(fresh):
    files = served()
    assert {plural: files[plural].read_bytes() for plural in GENERATED} == fresh
    assert all(files[plural].parent == dvp_crds.GENERATED for plural in GENERATED)


def test_the_in_memory_api_defaults_from_the_generated_schemas(fresh):
    schemas = schema.load()
    for plural, data in fresh.items():
        assert schemas[f"{plural}.virtualization.deckhouse.io"] == storage_schema(yaml.safe_load(data)), plural


def test_sim_crds_holds_only_the_hand_written_kinds():
    kinds = {yaml.safe_load(p.read_text())["spec"]["names"]["kind"] for p in dvp_crds.HAND_WRITTEN.glob("*.yaml")}
    assert kinds == HAND_WRITTEN
    assert {yaml.safe_load(p.read_text())["spec"]["names"]["kind"] for p in dvp_crd_files()} == \
        HAND_WRITTEN | set(GENERATED.values())


def test_the_api_server_serves_the_generated_schemas(dvp_api, fresh):
    client = dvp_api.client()
    try:
        for plural, data in fresh.items():
            doc = yaml.safe_load(data)
            crd = client.get(CRD, f"{plural}.virtualization.deckhouse.io")
            assert [(v["name"], v["schema"]) for v in crd["spec"]["versions"]] == \
                [(v["name"], v["schema"]) for v in doc["spec"]["versions"]], plural
    finally:
        client.close()


def test_missing_generated_crds_fail_with_one_line_naming_the_target(tmp_path, monkeypatch):
    monkeypatch.setattr(dvp_crds, "GENERATED", tmp_path / "virtualization")
    with pytest.raises(CrdError, match=r"^DVP's generated CRDs are missing \(.*virtualization is empty\): "
                                       r"run `make upstream`$"):
        dvp_crd_files()


def test_a_hand_written_copy_of_a_generated_kind_is_refused(tmp_path, monkeypatch):
    for p in dvp_crds.HAND_WRITTEN.glob("*.yaml"):
        shutil.copy(p, tmp_path)
    shutil.copy(dvp_crds.GENERATED / "virtualdisks.yaml", tmp_path)
    monkeypatch.setattr(dvp_crds, "HAND_WRITTEN", tmp_path)
    with pytest.raises(CrdError, match=r"hand-written copy of the generated virtualdisks\.yaml"):
        dvp_crd_files()

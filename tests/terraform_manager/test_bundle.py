# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The terraform-manager bundle: assembled from the tree as a reproducible OCI image, pushed to a local registry,
pulled and unpacked as dhctl does; what dhctl then reads from it (versions, plan rules, the validator)."""

from __future__ import annotations

import json
import re
import tarfile
from pathlib import Path

import pytest
import yaml
from bundle import contents
from imagekit import build
from terraform_manager import dhctl
from terraform_manager.inputs import BAD_MASTER_VIOLATION, bad_master_class_kind, payload

ROOT = Path(__file__).resolve().parents[2]
CANDI = ROOT / "candi"


@pytest.fixture
def binaries(tmp_path):
    out = []
    for name in ("provider", "validator"):
        (tmp_path / name).write_bytes(b"\x7fELF " + name.encode())
        out.append(tmp_path / name)
    return out


def test_the_bundle_holds_candi_the_binaries_and_no_tests(binaries):
    entries = {e.path: e for e in contents.entries(CANDI, *binaries)}
    assert sorted(p for p in entries if "/" not in p) == [
        "cni-bootstrap.yml", "layouts", "openapi", "terraform-manager", "terraform-modules", "validator"]
    assert sorted(p for p in entries if p.startswith("terraform-manager/")) == [
        "terraform-manager/plan_rules.yml", "terraform-manager/terraform-provider-kubernetes",
        "terraform-manager/terraform_versions.yml"]
    assert [p for p, e in entries.items() if e.mode == 0o755] == ["terraform-manager/terraform-provider-kubernetes",
                                                               "validator"]
    assert entries["layouts/standard/master-node/inputs.tf"].link == "../inputs.tf"
    assert not [p for p in entries if "/tests" in p or p.endswith((".tfstate", ".lock.hcl", "versions.tf"))]
    shipped = {p.removeprefix("terraform-modules/") for p in entries if p.startswith("terraform-modules/")
               and p.endswith(".tf")}
    assert shipped == {str(f.relative_to(CANDI / "terraform-modules")) for f in CANDI.glob("terraform-modules/*/*.tf")
                       if f.name != "versions.tf"}


def test_only_versions_tf_requires_providers():
    """dhctl's versions.tf replaces ours in the bundle: a provider requirement anywhere else would be required
    twice and fail `tofu init`."""
    blocks = sorted(str(f.relative_to(CANDI)) for f in CANDI.rglob("*.tf")
                    if not f.is_symlink() and "required_providers" in f.read_text())
    assert blocks and all(b.endswith("/versions.tf") for b in blocks), blocks


def test_the_image_is_reproducible_and_names_its_content(binaries, tmp_path):
    entries = contents.entries(CANDI, *binaries)
    first = build.image_from_entries("terraform-manager", entries, tmp_path / "a")
    again = build.image_from_entries("terraform-manager", entries, tmp_path / "b")
    layer = json.loads(first.layout.joinpath("blobs/sha256", first.digest.removeprefix("sha256:")).read_text())[
        "layers"][0]["digest"]
    assert first.digest == again.digest
    binaries[1].write_bytes(b"\x7fELF another validator")
    assert build.image_from_entries("terraform-manager", contents.entries(CANDI, *binaries),
                                    tmp_path / "c").digest != first.digest
    index = json.loads((first.layout / "index.json").read_text())
    assert [m["digest"] for m in index["manifests"]] == [first.digest]
    blob = first.layout / "blobs" / "sha256" / layer.removeprefix("sha256:")
    with tarfile.open(blob) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert {(m.uid, m.gid, m.mtime) for m in members.values()} == {(0, 0, 0)}
    assert members["validator"].mode == 0o755 and members["openapi/instance_class.yaml"].mode == 0o644


def test_the_pulled_bundle_is_laid_out_as_dhctl_expects(unpacked_bundle, pushed_bundle):
    assert unpacked_bundle.resolve().name == f"dvp@{pushed_bundle[1]}"
    versions = yaml.safe_load((unpacked_bundle / "terraform-manager" / "terraform_versions.yml").read_text())
    tofu_pin = re.search(r"github.com/opentofu/opentofu v(\S+)", (ROOT / "tools/tofu/go.mod").read_text()).group(1)
    assert versions["opentofu"] == tofu_pin
    assert versions["kubernetes"]["destinationBinary"] == "terraform-provider-kubernetes"
    provider = unpacked_bundle / "terraform-manager" / "terraform-provider-kubernetes"
    assert provider.read_bytes() == (ROOT / ".bin" / "terraform-provider-kubernetes").read_bytes()
    assert (unpacked_bundle / "validator").stat().st_mode & 0o111
    assert (unpacked_bundle / "openapi" / "cluster_configuration.yaml").is_file()
    assert (unpacked_bundle / "layouts/standard/master-node/inputs.tf").resolve() == \
        (unpacked_bundle / "layouts/standard/inputs.tf").resolve()


def test_the_bundles_validator_answers_dhctl(unpacked_bundle):
    validator = dhctl.spawn_validator(unpacked_bundle / "validator")
    try:
        assert dhctl.validate(validator.endpoint, payload("bootstrap")) == {"errors": [], "warnings": []}
        assert dhctl.validate(validator.endpoint, bad_master_class_kind(payload("bootstrap")))["errors"] == [
            BAD_MASTER_VIOLATION]
    finally:
        assert validator.stop() == 0


def manifest_change(address: str, actions: list[str], kind: str | None) -> dict:
    after = None if kind is None else {"manifest": {"apiVersion": "virtualization.deckhouse.io/v1alpha2",
                                                    "kind": kind, "metadata": {"name": "candi-master-0"}}}
    return {"address": address, "type": "kubernetes_manifest", "name": address.rsplit(".", 1)[1],
            "change": {"actions": actions, "before": {"manifest": {"kind": kind or "VirtualDisk"}}, "after": after}}


VM = "module.master.module.vm.kubernetes_manifest.vm"
ADDRESS = "module.ipv4_address.kubernetes_manifest.address"
DISK = 'module.master.module.additional_disk["0"].module.disk.kubernetes_manifest.disk'


@pytest.mark.parametrize(("changes", "expected"), [
    ([manifest_change(VM, ["update"], "VirtualMachine")], (False, False)),
    ([manifest_change(VM, ["update"], "VirtualMachine"),
      manifest_change(ADDRESS, ["create", "delete"], "VirtualMachineIPAddress")], (True, False)),
    ([manifest_change(VM, ["update"], "VirtualMachine"), manifest_change(DISK, ["delete"], None)], (True, False)),
    ([manifest_change(VM, ["delete", "create"], "VirtualMachine")], (True, True)),
], ids=["vm-update", "static-ip-change", "additional-disk-removal", "vm-replacement"])
def test_plan_rules_as_dhctl_reads_them(changes, expected):
    """Only a VirtualMachine's deletion is a VM destruction: a static-IP change or a removed additional disk
    deletes other manifests, which dhctl must not take for a master VM destruction."""
    rule = dhctl.load_plan_rules(CANDI / "plan_rules.yml")
    assert rule == dhctl.Rule("kubernetes_manifest", "manifest.kind", "VirtualMachine")
    assert dhctl.classify({"resource_changes": changes}, rule) == expected


def test_the_bundle_ships_the_trees_plan_rules(unpacked_bundle):
    assert (unpacked_bundle / "terraform-manager" / "plan_rules.yml").read_bytes() == \
        (CANDI / "plan_rules.yml").read_bytes()

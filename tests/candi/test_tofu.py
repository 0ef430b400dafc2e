# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""OpenTofu checks of candi/: formatting, validation of every layout step, and every module's `tofu test`."""

import re
import shutil
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.tools

CANDI = Path(__file__).resolve().parents[2] / "candi"

STEPS = ["base-infrastructure", "master-node", "static-node"]
TESTED = sorted(
    str(p.parent.parent.relative_to(CANDI)) for p in CANDI.glob("**/tests/*.tftest.hcl")
)


def test_there_are_module_tests():
    assert TESTED == [
        "layouts/standard/base-infrastructure",
        "layouts/standard/master-node",
        "layouts/standard/static-node",
        "terraform-modules/address-stuck",
        "terraform-modules/cloudinit-merge",
        "terraform-modules/credentials",
        "terraform-modules/ipv4-address",
        "terraform-modules/leftovers",
        "terraform-modules/migration",
        "terraform-modules/naming",
        "terraform-modules/network-policy",
        "terraform-modules/node-spec",
        "terraform-modules/validation",
        "terraform-modules/virtual-disk",
        "terraform-modules/virtual-machine",
    ]


def test_tofu_version_matches_terraform_versions(tofu):
    wanted = yaml.safe_load((CANDI / "terraform_versions.yml").read_text())["opentofu"]
    res = tofu.run(tofu.candi, "version")
    assert res.rc == 0, res.out
    assert res.out.splitlines()[0] == f"OpenTofu v{wanted}"


def test_fmt_check_passes(tofu):
    res = tofu.run(tofu.candi, "fmt", "-check", "-recursive", "-diff", "-no-color")
    assert res.rc == 0, res.out


def test_fmt_check_catches_bad_formatting(tofu, tmp_path):
    (tmp_path / "main.tf").write_text('locals {\n  a = 1\n  bb = 2\n}\n')
    res = tofu.run(tmp_path, "fmt", "-check", "-no-color")
    assert (res.rc, res.out.strip()) == (3, "main.tf")


@pytest.mark.parametrize("step", STEPS)
def test_layout_step_validates_with_the_mirrored_provider(tofu, step):
    cwd = tofu.candi / "layouts" / "standard" / step
    tofu.init(cwd)
    lock = (cwd / ".terraform.lock.hcl").read_text()
    wanted = yaml.safe_load((CANDI / "terraform_versions.yml").read_text())["kubernetes"]["version"]
    assert f'provider "registry.opentofu.org/hashicorp/kubernetes" {{\n  version = "{wanted}"' in lock
    res = tofu.run(cwd, "validate", "-no-color")
    assert (res.rc, res.out.strip()) == (0, "Success! The configuration is valid."), res.out


def count_runs(module: Path) -> int:
    return sum(len(re.findall(r'^run "', f.read_text(), re.M)) for f in (module / "tests").glob("*.tftest.hcl"))


@pytest.mark.parametrize("module", TESTED)
def test_module_tests_pass(tofu, module):
    cwd = tofu.candi / module
    tofu.init(cwd)
    res = tofu.run(cwd, "test", "-no-color")
    runs = count_runs(CANDI / module)
    assert res.rc == 0, res.out
    assert f"Success! {runs} passed, 0 failed." in res.out, res.out


def test_a_failing_assertion_fails_tofu_test(tofu, tmp_path):
    module = tmp_path / "naming"
    shutil.copytree(tofu.candi / "terraform-modules" / "naming", module)
    test = module / "tests" / "naming.tftest.hcl"
    test.write_text(test.read_text().replace("demo-master-1-root-ab91fd", "demo-master-1-root-000000"))
    tofu.init(module)
    res = tofu.run(module, "test", "-no-color")
    assert res.rc == 1
    assert "root disk: demo-master-1-root-ab91fd" in res.out


def run_sections(out: str) -> dict[str, str]:
    """Split `tofu test -verbose` output into the text printed for each run block."""
    parts = re.split(r'^\s*run "([^"]+)"\.\.\. ', out, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def test_only_a_new_boot_disk_replaces_the_vm(tofu):
    cwd = tofu.candi / "terraform-modules" / "virtual-machine"
    tofu.init(cwd)
    res = tofu.run(cwd, "test", "-verbose", "-no-color")
    assert res.rc == 0, res.out
    runs = run_sections(res.out)
    in_place = runs["change_cpu_memory_class_and_placement"]
    assert "kubernetes_manifest.vm will be updated in-place" in in_place, in_place
    assert "must be replaced" not in in_place, in_place
    # a new cloudConfig alone does not touch the Secret either
    assert "kubernetes_secret_v1.cloudinit" not in in_place, in_place
    replaced = runs["change_boot_disk"]
    for resource in ("kubernetes_manifest.vm", "kubernetes_secret_v1.cloudinit"):
        assert f"{resource} will be replaced due to changes in replace_triggered_by" in replaced, replaced

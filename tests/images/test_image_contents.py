# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What each built image holds and how it runs: the declared entry point, user and environment; the shared
layers shared by digest; no shell, package manager or compiler; only our packages with their bytecode; the
interpreter of the tests; the CSI driver's filesystem tools; an SBOM naming every package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from imagekit import declarations, oci, rootfs, sbom, wheels

PYTHON_IMAGES = ["capdvp-controller-manager", "cloud-controller-manager", "cloud-data-discoverer", "csi-driver",
                 "webhooks"]
PACKAGES = {"capdvp-controller-manager": "capdvp", "cloud-controller-manager": "dvp_ccm",
            "cloud-data-discoverer": "cloud_data_discoverer", "csi-driver": "dvp_csi", "webhooks": "dvp_webhooks"}
NEVER = ["usr/bin/sh", "usr/bin/dash", "usr/bin/bash", "usr/bin/apt", "usr/bin/apt-get", "usr/bin/dpkg",
         "usr/bin/pip", "usr/bin/pip3", "usr/bin/gcc", "usr/bin/cc", "usr/bin/perl"]
CSI_TOOLS = ["mkfs.ext4", "resize2fs", "mkfs.xfs", "xfs_growfs", "blkid", "blockdev", "mount", "umount"]


def run_in(root: Path, config: dict, argv: list[str]) -> subprocess.CompletedProcess:
    env = dict(e.split("=", 1) for e in config.get("Env", []))
    return subprocess.run(rootfs.bwrap_argv(root, argv, env=env), capture_output=True, text=True, timeout=60,
                          check=False)


def test_every_declared_image_is_built(images):
    assert sorted(images) == declarations.names() == [
        "capdvp-controller-manager", "cloud-controller-manager", "cloud-data-discoverer", "csi-driver",
        "snapshot-controller", "terraform-manager", "webhooks"]
    assert {b.key for b in images.values()} == {"capdvpControllerManager", "cloudControllerManager",
                                                "cloudDataDiscoverer", "csiDriver", "snapshotController",
                                                "terraformManager", "webhooks"}


@pytest.mark.parametrize("name", PYTHON_IMAGES)
def test_a_python_image_runs_its_package_as_64535_on_the_shared_layers(images, name):
    config = images[name].config
    assert config["Entrypoint"] == ["python3", "-m", PACKAGES[name]]
    assert config["User"] == "64535:64535"
    assert config["Env"] == ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin", "PYTHONDONTWRITEBYTECODE=1",
                             "PYTHONPATH=/app/src:/app/lib", "PYTHONUNBUFFERED=1"]
    base, *_, lib, own = oci.read_image(images[name].layout).layers
    reference = oci.read_image(images["cloud-controller-manager"].layout).layers
    assert (base, lib) == (reference[0], reference[-2])
    assert own != reference[-1] or name == "cloud-controller-manager"


def test_only_the_csi_driver_adds_debian_packages(images):
    counts = {name: len(oci.read_image(images[name].layout).layers) for name in PYTHON_IMAGES}
    assert counts == {**dict.fromkeys(PYTHON_IMAGES, 3), "csi-driver": 4}


@pytest.mark.parametrize("name", PYTHON_IMAGES)
def test_a_python_image_holds_no_shell_no_package_manager_and_no_compiler(rootfses, name):
    assert [p for p in NEVER if (rootfses[name] / p).exists() or (rootfses[name] / p).is_symlink()] == []


@pytest.mark.parametrize("name", PYTHON_IMAGES)
def test_a_python_image_holds_our_packages_without_tests_and_every_module_compiled(rootfses, name):
    src = rootfses[name] / "app" / "src"
    assert sorted(p.name for p in src.iterdir()) == sorted(["dvp_common", PACKAGES[name]])
    ours = list(src.rglob("*.py"))
    assert [str(p) for p in ours if p.name.endswith("_test.py") or "tests" in p.parts] == []
    modules = list((rootfses[name] / "app").rglob("*.py"))
    uncompiled = [str(p.relative_to(rootfses[name])) for p in modules
                  if not (p.parent / "__pycache__" / f"{p.stem}.cpython-313.pyc").is_file()]
    assert uncompiled == []
    stdlib = rootfses[name] / "usr/lib/python3.13"
    assert (stdlib / "__pycache__" / "json.cpython-313.pyc").exists() is False  # json is a package
    assert (stdlib / "json" / "__pycache__" / "decoder.cpython-313.pyc").is_file()


def test_the_images_interpreter_is_the_minor_version_the_tests_run_on(images, rootfses):
    res = run_in(rootfses["webhooks"], images["webhooks"].config,
                 ["python3", "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"])
    assert res.returncode == 0, res.stderr
    assert tuple(int(x) for x in res.stdout.split()) == sys.version_info[:2] == (3, 13)


@pytest.mark.parametrize("name", PYTHON_IMAGES)
def test_a_python_image_starts_its_component_read_only_as_64535(images, rootfses, name):
    mode = ["validation"] if name == "webhooks" else []
    res = run_in(rootfses[name], images[name].config, [*images[name].config["Entrypoint"], *mode, "--help"])
    assert res.returncode == 0, res.stderr[-400:]
    assert res.stdout.startswith(f"python -m {PACKAGES[name]}")
    probe = run_in(rootfses[name], images[name].config, [
        "python3", "-c", "import os\ntry:\n open('/app/x', 'w')\nexcept OSError as e:\n print(os.getuid(), e.errno)"])
    assert probe.stdout.split() == ["64535", "30"]  # EROFS


def test_the_wheels_are_the_components_run_time_closure_at_the_locked_versions(rootfses):
    lib = rootfses["cloud-controller-manager"] / "app" / "lib"
    installed = sorted("==".join(p.name.removesuffix(".dist-info").rsplit("-", 1)).lower().replace("_", "-")
                       for p in lib.glob("*.dist-info"))
    pins = [p.lower().replace("_", "-") for p in wheels.runtime_pins("3.13")]
    assert installed == sorted(pins)
    assert {p.split("==")[0] for p in pins} >= {"requests", "grpcio", "protobuf", "prometheus-client", "pyyaml"}
    assert not {"deckhouse", "cryptography", "grpcio-tools", "jinja2"} & {p.split("==")[0] for p in pins}


def test_the_csi_driver_carries_the_filesystem_tools_it_calls(images, rootfses):
    for tool in CSI_TOOLS:
        assert (rootfses["csi-driver"] / "usr/sbin" / tool).exists() or \
            (rootfses["csi-driver"] / "usr/bin" / tool).exists(), tool
    res = run_in(rootfses["csi-driver"], images["csi-driver"].config, ["mkfs.xfs", "-V"])
    assert res.returncode == 0 and res.stdout.startswith("mkfs.xfs version"), res.stderr
    res = run_in(rootfses["csi-driver"], images["csi-driver"].config, ["blkid", "-V"])
    assert res.returncode == 0 and "util-linux" in res.stdout, res.stderr


@pytest.mark.parametrize("name", sorted(PACKAGES) + ["snapshot-controller"])
def test_every_mount_point_of_the_pods_is_a_directory_of_the_image(images, rootfses, name):
    decl = declarations.load(name)
    assert decl.mount_points
    assert [d for d in decl.mount_points if not (rootfses[name] / d.strip("/")).is_dir()] == []


def test_snapshot_controller_is_the_pinned_static_binary_on_the_static_base(images, rootfses):
    root = rootfses["snapshot-controller"]
    assert images["snapshot-controller"].config["Entrypoint"] == ["/snapshot-controller"]
    assert (root / "snapshot-controller").read_bytes() == \
        (declarations.ROOT / ".bin" / "snapshot-controller").resolve().read_bytes()
    assert sorted(p.name for p in root.iterdir()) == ["dev", "etc", "proc", "snapshot-controller", "tmp"]
    res = run_in(root, images["snapshot-controller"].config, ["/snapshot-controller", "--help"])
    assert res.stderr.startswith("Usage of /snapshot-controller:") and "  -kubeconfig string" in res.stderr


def test_the_dhctl_bundle_is_a_scratch_image_of_its_files(images, rootfses):
    assert "Entrypoint" not in images["terraform-manager"].config
    assert (rootfses["terraform-manager"] / "validator").stat().st_mode & 0o111
    assert sorted(p.name for p in rootfses["terraform-manager"].iterdir()) == [
        "cni-bootstrap.yml", "layouts", "openapi", "terraform-manager", "terraform-modules", "validator"]


@pytest.mark.parametrize("name", PYTHON_IMAGES)
def test_the_sbom_names_every_debian_package_and_wheel_with_its_version(images, rootfses, name):
    doc = json.loads((images[name].layout / sbom.FILE).read_text())
    assert doc["spdxVersion"] == "SPDX-2.3"
    refs = {p["externalRefs"][0]["referenceLocator"] for p in doc["packages"] if "externalRefs" in p}
    status = sorted((rootfses[name] / "var/lib/dpkg/status.d").iterdir())
    debs = {f"pkg:deb/debian/{p.name}@{p.read_text().split('Version: ')[1].split()[0]}?arch=amd64&distro=trixie"
            for p in status}
    assert debs and debs <= refs
    pins = wheels.runtime_pins("3.13")
    assert {f"pkg:pypi/{pin.split('==')[0].lower()}@{pin.split('==')[1]}" for pin in pins} <= refs
    assert len(refs) == len(debs) + len(pins) + 2
    _, artifact = oci.read_manifest(images[name].layout / sbom.ARTIFACT)
    assert (artifact["artifactType"], artifact["subject"]["digest"]) == (sbom.MEDIA_TYPE, images[name].digest)
    assert oci.blob_path(images[name].layout / sbom.ARTIFACT, artifact["layers"][0]["digest"]).read_bytes() == \
        (images[name].layout / sbom.FILE).read_bytes()
    assert oci.read_index(images[name].layout / sbom.ARTIFACT)["manifests"][0]["annotations"] == {
        oci.REF_NAME: sbom.tag(images[name].digest)}

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The release of the real images (imagekit), pushed to a local registry and pulled back the way a ModuleSource
does (`python -m module_source verify`, a process): the true digests in images_digests.json and in the render of
the unpacked module, the unpacked file set, the hooks run from it; a version never overwritten."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from module_release import CHANNELS, MODULE, ReleaseError, fileset, module_image, publish, release_image
from module_source.registry import Registry

from .test_module_files import version


@pytest.fixture(scope="module")
def real_release(registry, real_images, tmp_path_factory) -> publish.Release:
    images = next(iter(real_images.values())).layout.parent
    return publish.release(f"{registry.host}/real", images, tmp_path_factory.mktemp("work"))


def test_release_pushes_every_image_by_its_true_digest(registry, real_images, real_release):
    assert real_release.digests == {b.key: b.digest for b in real_images.values()}
    reg = Registry(registry.host)
    try:
        assert reg.tags("real") == [MODULE]  # the tag a ModuleSource lists its modules by
        assert reg.manifest("real", MODULE).digest == real_release.module_digest
        assert reg.tags(f"real/{MODULE}/release") == sorted([*CHANNELS, f"v{version()}"])
        # beside the version: each image's SBOM tag, and the referrers fallback tag crane keeps for its subject
        sboms = {d.replace(":", "-") + ".sbom" for d in real_release.digests.values()}
        referrers = {d.replace(":", "-") for d in real_release.digests.values()}
        assert reg.tags(f"real/{MODULE}") == sorted({f"v{version()}", *sboms, *referrers})
        for digest in real_release.digests.values():
            sbom_manifest = reg.manifest(f"real/{MODULE}", digest.replace(":", "-") + ".sbom")
            assert (sbom_manifest.doc["artifactType"], sbom_manifest.doc["subject"]["digest"]) == \
                ("application/spdx+json", digest)
        channel_digests = {reg.manifest(f"real/{MODULE}/release", c).digest for c in CHANNELS}
        assert channel_digests == {real_release.release_digest}
        for digest in real_release.digests.values():
            assert reg.manifest(f"real/{MODULE}", digest).digest == digest
    finally:
        reg.close()


def test_verify_pulls_unpacks_renders_and_runs_a_hook(registry, real_release, tmp_path):
    dest = tmp_path / "module"
    proc = subprocess.run([sys.executable, "-m", "module_source", "verify", "--repo", real_release.repo,
                           "--channel", "stable", "--dest", str(dest), "--tree", str(fileset.ROOT)],
                          capture_output=True, text=True, check=False)  # as `make release` runs it
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["version"] == f"v{version()}" and report["module_digest"] == real_release.module_digest
    assert report["digests"] == real_release.digests
    base = f"{registry.host}/real/{MODULE}"
    # Every component the chart deploys, at its true digest (terraformManager is dhctl's, not the chart's).
    assert report["rendered_images"] == sorted(f"{base}@{d}" for k, d in real_release.digests.items()
                                               if k != "terraformManager")
    assert report["hook_values_patches"] == [
        {"op": "add", "path": "/cloudProviderDvp/internal/disableLoadBalancer", "value": True}]
    assert report["dvp_common"] == str(dest / "images/dvp-common/dvp_common/__init__.py")
    assert "disable_load_balancer.py" in report["hooks"] and len(report["hooks"]) == 13
    unpacked = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file() or p.is_symlink()}
    assert unpacked == {e.path for e in module_image.entries(real_release.digests, version()) if not e.is_dir}
    assert json.loads((dest / "images_digests.json").read_text()) == real_release.digests
    assert not (tmp_path / "module.partial").exists()


def test_the_same_release_again_is_a_no_op(registry, real_images, real_release, tmp_path):
    images = next(iter(real_images.values())).layout.parent
    again = publish.release(f"{registry.host}/real", images, tmp_path / "work")
    assert (again.module_digest, again.release_digest) == (real_release.module_digest, real_release.release_digest)


def test_a_released_version_is_never_overwritten(registry, real_images, real_release, tmp_path, monkeypatch):
    (tmp_path / "CHANGELOG").mkdir()
    (tmp_path / "CHANGELOG" / f"v{version()}.yml").write_text("nodes:\n  fixes:\n    - summary: another text\n")
    monkeypatch.setattr(release_image, "CHANGELOG_DIR", tmp_path / "CHANGELOG")
    images = next(iter(real_images.values())).layout.parent
    with pytest.raises(ReleaseError) as err:
        publish.release(f"{registry.host}/real", images, tmp_path / "work")
    ref = f"{registry.host}/real/{MODULE}/release:v{version()}"
    assert str(err.value).startswith(f"{ref} already holds {real_release.release_digest}, this build is sha256:")
    assert str(err.value).endswith(": a released version is never overwritten (raise [project].version in "
                                   "pyproject.toml)")
    reg = Registry(registry.host)
    try:
        assert reg.manifest(f"real/{MODULE}/release", "stable").digest == real_release.release_digest
    finally:
        reg.close()


def test_missing_layouts_and_unknown_channels_are_refused(registry, tmp_path):
    with pytest.raises(ReleaseError) as err:
        publish.release(f"{registry.host}/none", tmp_path / "images", tmp_path / "work")
    assert str(err.value) == (f"image capdvp-controller-manager: no OCI layout in {tmp_path}/images/"
                              f"capdvp-controller-manager (run `make images`)")
    with pytest.raises(ReleaseError) as err:
        publish.release(f"{registry.host}/none", tmp_path / "images", tmp_path / "work", ("stable", "nightly"))
    assert str(err.value) == "channel 'nightly' is not one of alpha, beta, early-access, stable, rock-solid"

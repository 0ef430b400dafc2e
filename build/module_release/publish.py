# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A release, in an order that moves no tag before every check passed: the inputs read (changelog, layouts), the
release image written and its version tag checked, the component images pushed by digest (no tag), the module
image written with the digests the registry answered and its version tag checked (a released version is never
overwritten with other content), then both version tags pushed, the channels tagged, and last the module listed
in the repo (`<repo>:cloud-provider-dvp`, the tag a ModuleSource finds modules by), so no ModuleSource ever
lists the module before a release of it is whole."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from imagekit import build, declarations, oci, sbom

from . import CHANNELS, MODULE, ReleaseError, crane, module_image, release_image


@dataclass(frozen=True)
class Release:
    repo: str  # what a ModuleSource's spec.registry.repo names
    version: str  # vX.Y.Z
    module_ref: str
    module_digest: str
    release_ref: str
    release_digest: str
    channels: tuple[str, ...]
    digests: dict[str, str] = field(default_factory=dict)  # images_digests.json

    def summary(self) -> dict:
        return {"repo": self.repo, "version": self.version, "module": f"{self.module_ref}@{self.module_digest}",
                "release": f"{self.release_ref}@{self.release_digest}", "channels": list(self.channels),
                "images_digests": self.digests}


def version() -> str:
    return build.version()


def component_layouts(images: Path) -> dict[str, Path]:
    """imageKey -> OCI layout of every declared image (images/*/image.yaml); a missing one is an error."""
    out = {}
    for name in declarations.names():
        layout = images / name
        if not (layout / "index.json").is_file():
            raise ReleaseError(f"image {name}: no OCI layout in {layout} (run `make images`)")
        out[declarations.load(name).key] = layout
    return out


def _refuse_overwrite(ref: str, ours: str) -> None:
    there = crane.digest(ref)
    if there is not None and there != ours:
        raise ReleaseError(f"{ref} already holds {there}, this build is {ours}: a released version is never "
                           f"overwritten (raise [project].version in pyproject.toml)")


def _push_sbom(layout: Path, module_repo: str, digest: str, key: str) -> None:
    """The image's SBOM artifact (its subject: the image) under the tag `sha256-<hex>.sbom` beside it."""
    artifact = layout / sbom.ARTIFACT
    if not (artifact / "index.json").is_file():
        raise ReleaseError(f"image {key}: no SBOM artifact in {artifact} (run `make images`)")
    want = oci.read_manifest(artifact)[0]
    got = crane.push(artifact, f"{module_repo}:{sbom.tag(digest)}")
    if got != want:
        raise ReleaseError(f"image {key}: its SBOM in the registry is {got}, the layout's is {want}")


def release(repo: str, images: Path, work: Path, channels: tuple[str, ...] = CHANNELS) -> Release:
    repo = repo.rstrip("/")
    unknown = [c for c in channels if c not in CHANNELS]
    if unknown:
        raise ReleaseError(f"channel {unknown[0]!r} is not one of {', '.join(CHANNELS)}")
    ver = version()
    log = release_image.changelog(ver)
    layouts = component_layouts(images)
    local = {key: oci.read_manifest(layout)[0] for key, layout in layouts.items()}
    module_repo, release_repo = f"{repo}/{MODULE}", f"{repo}/{MODULE}/release"
    module_ref, release_ref = f"{module_repo}:v{ver}", f"{release_repo}:v{ver}"
    blobs, created = work / "blobs", build.created()
    shutil.rmtree(blobs, ignore_errors=True)  # only this release's blobs (the layouts link them)
    # The release image first, and a version tag holding another release refused before anything is pushed.
    rel = release_image.write(work / "release", blobs, ver, log, created)
    _refuse_overwrite(release_ref, rel.digest)
    # Component images by digest only (no tag moves); images_digests.json is what the registry answered.
    pushed: dict[str, str] = {}
    for key, layout in layouts.items():
        pushed[key] = crane.push(layout, f"{module_repo}@{local[key]}")
        if pushed[key] != local[key]:
            raise ReleaseError(f"image {key}: the registry holds {pushed[key]}, the layout {layout} is {local[key]}")
        _push_sbom(layout, module_repo, pushed[key], key)
    (work / "images_digests.json").write_bytes(module_image.digests_json(pushed))
    module = module_image.write(work / "module", blobs, pushed, ver, created)
    _refuse_overwrite(module_ref, module.digest)
    module_pushed = crane.push(module.layout, module_ref)
    release_pushed = crane.push(rel.layout, release_ref)
    for got, want, ref in ((module_pushed, module.digest, module_ref), (release_pushed, rel.digest, release_ref)):
        if got != want:
            raise ReleaseError(f"{ref}: the registry holds {got}, the layout is {want}")
    for channel in channels:
        crane.tag(f"{release_repo}@{release_pushed}", channel)
    crane.push(module.layout, f"{repo}:{MODULE}")
    return Release(repo, f"v{ver}", module_ref, module_pushed, release_ref, release_pushed, tuple(channels), pushed)

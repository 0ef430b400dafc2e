# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The whole ModuleSource path for one channel, in the order Deckhouse takes it: the repo's tags (a ModuleSource
lists its modules by them: `<repo>:cloud-provider-dvp` must exist), the release repository's tags,
the channel's release image (version.json, changelog.yaml), the module image of that version unpacked into
`<dest>.partial`, every image of its images_digests.json present in `<repo>/cloud-provider-dvp` with every blob
intact and its SBOM beside it, the chart rendered from the unpacked files and its hooks run from them; `<dest>`
appears only when all of it passed."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import MODULE, SourceError, deadline, hooks, limits, parity, render, shapes, unpack
from .registry import DIGEST, NotFound, Registry, split_repo

VERSION = re.compile(r"v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?")


@dataclass
class Report:
    repo: str
    channel: str
    version: str
    module_digest: str
    dest: str
    digests: dict[str, str] = field(default_factory=dict)
    rendered_images: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    hook_values_patches: list = field(default_factory=list)
    dvp_common: str = ""
    changelog_areas: list[str] = field(default_factory=list)


def _tags(reg: Registry, repo: str) -> list[str]:
    """The repository's tags; a repository the registry does not know has none."""
    try:
        return reg.tags(repo)
    except NotFound:
        return []


def check_listed(reg: Registry, path: str) -> None:
    """The module is among the repo's tags, the list a ModuleSource reads its modules from."""
    tags = _tags(reg, path)
    if MODULE not in tags:
        raise SourceError(f"{reg.host}/{path}: the module {MODULE} is not listed (a ModuleSource finds modules by "
                          f"the repo's tags; tags: {', '.join(tags[:10]) or 'none'})")


def channel_tag(channel: str) -> str:
    """The release tag of a channel named as a ModuleUpdatePolicy names it (`EarlyAccess`) or as a tag."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "-", channel).lower()


def release_metadata(reg: Registry, release_repo: str, channel: str) -> tuple[str, dict]:
    """(version, changelog) of the channel's release image."""
    tags = reg.tags(release_repo)
    if channel not in tags:
        raise SourceError(f"release channel {channel}: no such tag in {reg.host}/{release_repo} "
                          f"(tags: {', '.join(tags) or 'none'})")
    files = unpack.read_files(reg, reg.manifest(release_repo, channel), ("version.json", "changelog.yaml"))
    where = f"release channel {channel} ({reg.host}/{release_repo}:{channel})"
    if "version.json" not in files:
        raise SourceError(f"{where}: no version.json in the release image")
    try:
        doc = json.loads(files["version.json"])
    except ValueError as exc:
        raise SourceError(f"{where}: version.json is not JSON ({exc})") from None
    version = doc.get("version") if isinstance(doc, dict) else None
    if not isinstance(version, str) or not VERSION.fullmatch(version):
        raise SourceError(f"{where}: version.json: version must be vX.Y.Z, got {version!r}")
    try:
        changelog = yaml.safe_load(files.get("changelog.yaml", b"")) or {}
    except (yaml.YAMLError, RecursionError):
        raise SourceError(f"{where}: changelog.yaml is not YAML") from None
    if not isinstance(changelog, dict):
        raise SourceError(f"{where}: changelog.yaml is not a mapping")
    return version, changelog


def _module_manifest(reg: Registry, module_repo: str, channel: str, version: str):
    if version not in _tags(reg, module_repo):
        raise SourceError(f"release channel {channel} names {version}, but {reg.host}/{module_repo}:{version} "
                          f"does not exist")
    return reg.manifest(module_repo, version)


def _read(root: Path, name: str, version: str) -> bytes | None:
    """A top-level file of the unpacked module: a regular file of at most 1 MiB, or None when absent."""
    path = root / name
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_symlink() or not path.is_file() or path.stat().st_size > limits.MIB:
        raise SourceError(f"module image {version}: {name} is not a regular file of at most {limits.MIB} bytes")
    return path.read_bytes()


def _yaml(root: Path, name: str, version: str) -> dict | None:
    raw = _read(root, name, version)
    if raw is None:
        return None
    try:
        doc = yaml.safe_load(raw)
    except (yaml.YAMLError, RecursionError, UnicodeDecodeError):
        raise SourceError(f"module image {version}: {name} is not YAML") from None
    if not isinstance(doc, dict):
        raise SourceError(f"module image {version}: {name} is not a mapping")
    return doc


def _check_module_files(root: Path, version: str) -> dict[str, str]:
    module = _yaml(root, "module.yaml", version)
    if module is None or module.get("name") != MODULE:
        raise SourceError(f"module image {version}: module.yaml missing or not the module {MODULE}")
    chart = _yaml(root, "Chart.yaml", version)
    chart_version = chart.get("version") if chart is not None else None
    if str(chart_version) != version.removeprefix("v"):
        raise SourceError(f"module image {version}: Chart.yaml version {shapes.describe(chart_version)} is not "
                          f"{version.removeprefix('v')}")
    raw = _read(root, "images_digests.json", version)
    try:
        digests = json.loads(raw) if raw is not None else None
    except (ValueError, RecursionError):
        digests = None
    if digests is None:
        raise SourceError(f"module image {version}: images_digests.json missing or not JSON") from None
    if not isinstance(digests, dict) or not digests:
        raise SourceError(f"module image {version}: images_digests.json is not an object of image digests")
    for key, digest in digests.items():
        if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
            raise SourceError(f"images_digests.json: {shapes.describe(key)}: {shapes.describe(digest)} is not a "
                              f"sha256 digest")
    return digests


def check_images(reg: Registry, module_repo: str, digests: dict[str, str]) -> None:
    """Each image of images_digests.json: its manifest by digest, its config and every layer read and hashed."""
    for key, digest in sorted(digests.items()):
        if not reg.has_manifest(module_repo, digest):
            raise SourceError(f"images_digests.json: {key} {digest} is not in {reg.host}/{module_repo}")
        manifest = reg.manifest(module_repo, digest)
        for desc in [manifest.config, *manifest.layers]:
            try:
                reg.blob(module_repo, desc)
            except NotFound:
                raise SourceError(f"images_digests.json: {key} {digest}: blob {desc.get('digest')} is missing "
                                  f"from {reg.host}/{module_repo}") from None


SBOM_TYPE = "application/spdx+json"


def check_sboms(reg: Registry, module_repo: str, digests: dict[str, str]) -> None:
    """Each image's SBOM: the artifact tagged `sha256-<hex>.sbom` names the image as its subject and holds an
    SPDX document (its blob hashed like every other)."""
    for key, digest in sorted(digests.items()):
        tag = digest.replace(":", "-") + ".sbom"
        try:
            manifest = reg.manifest(module_repo, tag)
        except NotFound:
            raise SourceError(f"images_digests.json: {key} {digest}: no SBOM ({reg.host}/{module_repo}:{tag})") \
                from None
        subject = manifest.doc.get("subject")
        subject = subject.get("digest") if isinstance(subject, dict) else None
        layers = manifest.layers
        if manifest.doc.get("artifactType") != SBOM_TYPE or subject != digest or len(layers) != 1:
            raise SourceError(f"{reg.host}/{module_repo}:{tag}: not the SPDX SBOM of {digest}")
        chunks: list[bytes] = []
        reg.blob(module_repo, layers[0], sink=chunks.append, max_size=limits.JSON_BLOB_BYTES)
        doc = shapes.load(b"".join(chunks), f"{reg.host}/{module_repo}:{tag}", "the SBOM")
        if not isinstance(doc, dict) or doc.get("spdxVersion") != "SPDX-2.3" or not doc.get("packages"):
            raise SourceError(f"{reg.host}/{module_repo}:{tag}: the SBOM is not an SPDX 2.3 document")


def _check_render(objects: list[dict], base: str, digests: dict[str, str]) -> list[str]:
    ours = [i for i in render.images(objects) if i.startswith(base + "@")]
    known = set(digests.values())
    for image in ours:
        if image.partition("@")[2] not in known:
            raise SourceError(f"render: {image} is not an image of images_digests.json")
    if not ours:
        raise SourceError(f"render: no container image from {base}")
    return ours


def verify(repo: str, channel: str, dest: Path, *, scheme: str | None = None, tree: Path | None = None,
           seconds: float | None = None, registry: Registry | None = None) -> Report:
    """Pulls and checks the channel's release into `dest` (absent or empty; left as it was on any failure), all of
    it within `seconds`. With `tree`, the unpacked module must render exactly as that source tree does."""
    seconds = seconds or limits.VERIFY_SECONDS
    host, path = split_repo(repo)
    module_repo, release_repo = f"{path}/{MODULE}", f"{path}/{MODULE}/release"
    base = f"{host}/{module_repo}"
    reg = registry or Registry(host, scheme)
    try:
        with unpack.atomic(dest) as root, deadline.within(seconds, f"verify {repo}: not done within {seconds:g} s"):
            reg.ping()
            check_listed(reg, path)
            version, changelog = release_metadata(reg, release_repo, channel_tag(channel))
            manifest = _module_manifest(reg, module_repo, channel, version)
            unpack.image(reg, manifest, root)
            digests = _check_module_files(root, version)
            check_images(reg, module_repo, digests)
            check_sboms(reg, module_repo, digests)
            chart_values = render.values(digests, base)
            rendered = _check_render(render.chart(root, chart_values), base, digests)
            if tree is not None:
                parity.compare(root, tree, digests, base)
            configs = hooks.configs(root)
            outputs = hooks.run_one(root, configs[hooks.HOOK], chart_values)
            if hooks.EXPECTED_PATCH not in outputs["VALUES_JSON_PATCH_PATH"]:
                raise SourceError(f"hooks/{hooks.HOOK}: its values patches lack {hooks.EXPECTED_PATCH}")
            origin = hooks.dvp_common_origin(root)
            if not Path(origin).resolve().is_relative_to(root.resolve()):
                raise SourceError(f"hooks/lib/dvp.py: dvp_common came from {shapes.describe(origin)}, not from "
                                  f"the module")
            origin = str(dest / Path(origin).resolve().relative_to(root.resolve()))
    finally:
        reg.close()
    return Report(repo, channel, version, manifest.digest, str(dest), digests, rendered, sorted(configs),
                  outputs["VALUES_JSON_PATCH_PATH"], origin, sorted(str(k) for k in changelog))

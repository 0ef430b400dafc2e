# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One declaration per image, `images/<name>/image.yaml`: what it holds, its entry point, user and environment;
the bases they stand on in `images/base.yaml`. Nothing else says what an image is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import ImageError

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "images"
BASES = ("python", "static", "scratch")
KEYS = {"base", "debian", "python", "generated", "files", "contents", "entrypoint", "env", "user"}


class DeclarationError(ImageError):
    pass


@dataclass(frozen=True)
class FileSpec:
    source: str  # relative to the tree
    target: str  # inside the image
    mode: int = 0o644


@dataclass(frozen=True)
class Declaration:
    name: str
    base: str
    debian: tuple[str, ...] = ()  # packages on top of the base, in a layer of their own
    python: tuple[str, ...] = ()  # package directories, to /app/src/<directory name>
    generated: tuple[str, ...] = ()  # generated package directories (make generate), to /app/src/<package path>
    files: tuple[FileSpec, ...] = ()
    contents: str = ""  # a recipe of imagekit.build.RECIPES giving a scratch image's entries (the dhctl bundle)
    entrypoint: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    user: str = ""
    mount_points: tuple[str, ...] = ()  # images/<name>/mount-points.yaml: empty directories the pods mount over

    @property
    def key(self) -> str:
        """The image key of global.modulesImages.digests (`csi-driver` -> `csiDriver`)."""
        head, *rest = self.name.split("-")
        return head + "".join(p.capitalize() for p in rest)


def names() -> list[str]:
    return sorted(p.parent.name for p in IMAGES.glob("*/image.yaml"))


def _fail(name: str, message: str) -> DeclarationError:
    return DeclarationError(f"images/{name}/image.yaml: {message}")


def load(name: str) -> Declaration:
    path = IMAGES / name / "image.yaml"
    if not path.is_file():
        raise DeclarationError(f"images/{name}/image.yaml: no such declaration (images: {', '.join(names())})")
    doc = yaml.safe_load(path.read_text()) or {}
    unknown = set(doc) - KEYS
    if unknown:
        raise _fail(name, f"unknown field {sorted(unknown)[0]!r} (known: {', '.join(sorted(KEYS))})")
    if doc.get("base") not in BASES:
        raise _fail(name, f"base: {doc.get('base')!r} is not one of {', '.join(BASES)}")
    for rel in [*doc.get("python", []), *doc.get("generated", [])]:
        if not (ROOT / rel).is_dir():
            raise _fail(name, f"python: {rel} is not a directory of the tree")
    files = []
    for i, spec in enumerate(doc.get("files", [])):
        if set(spec) - {"from", "to", "mode"} or "from" not in spec or "to" not in spec:
            raise _fail(name, f"files[{i}]: needs exactly from, to and an optional mode")
        files.append(FileSpec(spec["from"], spec["to"].strip("/"), int(spec.get("mode", 0o644))))
    mounts = IMAGES / name / "mount-points.yaml"
    dirs = tuple((yaml.safe_load(mounts.read_text()) or {}).get("dirs", [])) if mounts.is_file() else ()
    return Declaration(name, doc["base"], tuple(doc.get("debian", [])), tuple(doc.get("python", [])),
                       tuple(doc.get("generated", [])), tuple(files), doc.get("contents", ""),
                       tuple(doc.get("entrypoint", [])), dict(doc.get("env", {})), str(doc.get("user", "")), dirs)


def base_settings() -> dict:
    return yaml.safe_load((IMAGES / "base.yaml").read_text())

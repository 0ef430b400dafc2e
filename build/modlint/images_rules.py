# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DMT `images` linter rules over images/<image>/: werf recipes, Dockerfiles, patches."""

from __future__ import annotations

import pathlib
import re

import yaml

from .files import rel
from .findings import Finding

LINTER = "images"
# werf.inc.yaml is a Go template; these stand-ins make it YAML the way werf renders it for this module
_TEMPLATE = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")


def _image_dirs(module_dir: pathlib.Path) -> list[pathlib.Path]:
    folder = module_dir / "images"
    return sorted(d for d in folder.iterdir() if d.is_dir()) if folder.is_dir() else []


def _render(text: str, module: str, image: str) -> str:
    def stand_in(found: re.Match) -> str:
        expr = found[1]
        if expr == ".ModuleNamePrefix":
            return f"{module}/"
        if expr == ".ImageName":
            return image
        if expr == ".ModuleDir":
            return "/module"
        return "TEMPLATE"
    return _TEMPLATE.sub(stand_in, text)


def werf(module_dir: pathlib.Path, module: str) -> list[Finding]:
    """fromImage of every final image is base/<name>; no artifact:; no imageSpec.config.user; no `_` in names."""
    out = []
    for folder in _image_dirs(module_dir):
        path = folder / "werf.inc.yaml"
        if not path.exists():
            continue
        relpath = rel(module_dir, path)
        try:
            docs = [d for d in yaml.safe_load_all(_render(path.read_text(), module, folder.name)) if d]
        except yaml.YAMLError as exc:
            out.append(Finding(LINTER, "werf", f"not valid YAML after templating: {str(exc).splitlines()[0]}",
                               path=relpath))
            continue
        for i, doc in enumerate(docs, 1):
            name = str(doc.get("image", ""))
            where = f"manifest {i} ({name})"
            if "_" in name:
                out.append(Finding("templates", "werf", f"{where}: image names have no underscores", path=relpath))
            if "artifact" in doc:
                out.append(Finding(LINTER, "werf", f"{where}: use fromImage with final: false, not artifact:",
                                   path=relpath))
            if doc.get("final") is False:
                continue
            source = str(doc.get("fromImage") or "").strip()
            if source and not re.fullmatch(r"base/[^/\s]+", source):
                out.append(Finding(LINTER, "werf", f"{where}: fromImage {source!r} must be base/<name>", path=relpath))
            if ((doc.get("imageSpec") or {}).get("config") or {}).get("user") not in (None, ""):
                out.append(Finding(LINTER, "werf", f"{where}: imageSpec.config.user must stay empty", path=relpath))
    return out


def dockerfiles(module_dir: pathlib.Path) -> list[Finding]:
    """dockerfile/distroless: the last FROM is $BASE_DISTROLESS or $BASE_ALT*; earlier ones $BASE_* or @sha256."""
    out = []
    for folder in _image_dirs(module_dir):
        path = folder / "Dockerfile"
        if not path.exists():
            continue
        froms = [ln.split()[1] for ln in path.read_text().splitlines()
                 if ln.startswith("FROM ") and len(ln.split()) > 1]
        relpath = rel(module_dir, path)
        for source in froms[:-1]:
            if not source.startswith("$BASE_") and "@sha256:" not in source:
                out.append(Finding(LINTER, "dockerfile", f"FROM {source}: use a $BASE_ image or pin @sha256",
                                   path=relpath))
        if froms and not froms[-1].startswith(("$BASE_DISTROLESS", "$BASE_ALT")):
            out.append(Finding(LINTER, "distroless", f"last FROM {froms[-1]}: use $BASE_DISTROLESS or $BASE_ALT",
                               path=relpath))
    return out


def patches(module_dir: pathlib.Path) -> list[Finding]:
    """patches/NNN-name.patch, each with a `# NNN-name.patch` section in patches/README.md."""
    out = []
    for folder in _image_dirs(module_dir):
        patch_dir = folder / "patches"
        if not patch_dir.is_dir():
            continue
        readme = patch_dir / "README.md"
        sections = set(re.findall(r"^#+\s*(\S+\.patch)\s*$", readme.read_text(), re.M)) if readme.exists() else set()
        for patch in sorted(patch_dir.glob("*.patch")):
            relpath = rel(module_dir, patch)
            if not re.fullmatch(r"\d{3}-[a-z0-9][-a-z0-9.]*\.patch", patch.name):
                out.append(Finding(LINTER, "patches", "patch files are named NNN-name.patch", path=relpath))
            if patch.name not in sections:
                out.append(Finding(LINTER, "patches", f"patches/README.md needs a '# {patch.name}' section",
                                   path=relpath))
    return out


def rules(module_name: str):
    return (lambda d: werf(d, module_name), dockerfiles, patches)

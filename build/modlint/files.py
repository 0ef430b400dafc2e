# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module's own files, as the file rules see them."""

from __future__ import annotations

import os
import pathlib
import re
from collections.abc import Iterator

import yaml

# Local environment, caches and generated stubs: not part of the module.
SKIP_DIRS = {".git", ".venv", ".bin", ".cache", ".tmp", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis",
             ".terraform", "generated", "node_modules"}
CYRILLIC = re.compile("[\u0400-\u04ff]")


def walk(module_dir: pathlib.Path, under: str = "") -> Iterator[pathlib.Path]:
    """Every file below `module_dir/under`, sorted, skipping local environment folders."""
    top = module_dir / under if under else module_dir
    if not top.exists():
        return
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            yield pathlib.Path(root) / name


def rel(module_dir: pathlib.Path, path: pathlib.Path) -> str:
    return path.relative_to(module_dir).as_posix()


def text(path: pathlib.Path) -> str | None:
    """The file as UTF-8 text, or None for binary files."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode()
    except UnicodeDecodeError:
        return None


def load_yaml(path: pathlib.Path) -> object:
    return yaml.safe_load(path.read_text())


def is_russian_file(relpath: str) -> bool:
    """Files allowed to hold Russian text (DMT's no-cyrillic exemptions)."""
    name = relpath.rsplit("/", 1)[-1]
    return (name.startswith("doc-ru-") or ".ru." in name or name.endswith("_RU.md") or relpath == "module.yaml"
            or relpath.startswith("openapi/conversions/") or "/i18n/" in f"/{relpath}")

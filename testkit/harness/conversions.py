# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""ModuleConfig settings conversions (openapi/conversions/vN.yaml) applied as Deckhouse does: every jq expression
of every version above the config's own, in order, by gojq (tools/gojq, the jq implementation Deckhouse embeds)."""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]


def gojq() -> str:
    path = ROOT / ".bin" / "gojq"
    if path.exists():
        return str(path)
    found = shutil.which("gojq")
    if found:
        return found
    raise RuntimeError("gojq not found: run `make tools` (tools/build gojq) to build the pinned gojq")


def conversions(module_dir: pathlib.Path = ROOT) -> dict[int, list[str]]:
    """Version -> its jq expressions."""
    out = {}
    for path in sorted((module_dir / "openapi" / "conversions").glob("v*.yaml")):
        number = int(re.fullmatch(r"v(\d+)\.yaml", path.name)[1])
        out[number] = list(yaml.safe_load(path.read_text())["conversions"])
    return out


def convert(settings: dict, from_version: int, module_dir: pathlib.Path = ROOT) -> dict:
    """The settings of a `from_version` ModuleConfig, converted to the newest version."""
    for version, expressions in sorted(conversions(module_dir).items()):
        if version <= from_version:
            continue
        for expression in expressions:
            proc = subprocess.run([gojq(), expression], input=json.dumps(settings), capture_output=True,
                                  text=True, check=False, timeout=30)
            if proc.returncode != 0:
                raise ValueError(f"conversion v{version} {expression!r} failed: {proc.stderr.strip()}")
            results = proc.stdout.splitlines()
            if len(results) != 1:
                raise ValueError(f"conversion v{version} {expression!r} gave {len(results)} results, not one")
            settings = json.loads(results[0])
    return settings

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Structural defaulting from the DVP API's CRDs (sim.dvp_crds: DVP's generated ones and our hand-written ones), as
kube-apiserver applies `default:` on every write. Validation (types, enums, patterns, CEL: the 422 answers) is the
real API server's job and is not copied here: tests of those rules run on the real API only."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from ..dvp_crds import dvp_crd_files


def load(files: Iterable[Path] | None = None) -> dict[str, dict[str, Any]]:
    """`<plural>.<group>` -> the openAPI schema of the storage version, from `files` (default: the DVP API's, read
    once per process; never modified)."""
    return _dvp_schemas() if files is None else _load(tuple(files))


@functools.cache
def _dvp_schemas() -> dict[str, dict[str, Any]]:
    return _load(tuple(dvp_crd_files()))


def _load(files: tuple[Path, ...]) -> dict[str, dict[str, Any]]:
    out = {}
    for path in files:
        for doc in yaml.load_all(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc["spec"]
            version = next(v for v in spec["versions"] if v.get("storage", v.get("served")))
            out[f"{spec['names']['plural']}.{spec['group']}"] = version["schema"]["openAPIV3Schema"]
    return out


def apply(schema: dict[str, Any], value: Any) -> Any:
    """`value` with the schema's defaults filled in where fields are absent (objects and array items)."""
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for name, sub in props.items():
            if name not in value and "default" in sub:
                value[name] = json.loads(json.dumps(sub["default"]))
            if name in value:
                value[name] = apply(sub, value[name])
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for name in list(value):
                if name not in props:
                    value[name] = apply(extra, value[name])
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [apply(schema["items"], item) for item in value]
    return value


class Defaults:
    def __init__(self, files: Iterable[Path] | None = None) -> None:
        self.schemas = load(files)

    def __call__(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        schema = self.schemas.get(kind)
        return obj if schema is None else apply(schema, obj)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Validate rendered manifests: built-in kinds against the Kubernetes schemas kubernetes-validate ships (strict mode:
unknown fields are errors), custom resources against their CRD's openAPIV3Schema (made strict the same way).

CRDs come from our crds/, from .cache/upstream (tools/fetch-upstream) and, for the DVP API, from sim.dvp_crds (DVP's
generated CRDs and our hand-written ones). The VPA, PodMonitor and PrometheusRule
CRDs are not available to us; testkit/harness/schemas/ holds small hand-written schemas for the fields we use.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from kubernetes_validate import utils as kv
from referencing import Registry, Resource

from sim.dvp_crds import GENERATED, dvp_crd_files

ROOT = Path(__file__).resolve().parents[2]
CRD_DIRS = (ROOT / "crds", ROOT / ".cache" / "upstream")
OWN_SCHEMAS = Path(__file__).with_name("schemas")
MIN_VERSION = "1.30"


def newest_version() -> str:
    return kv.major_minor(kv.latest_version())


def kube_versions() -> tuple[str, str]:
    """The versions every object must pass: our minimum and the newest schema kubernetes-validate ships."""
    return (MIN_VERSION, newest_version())


def describe(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    name = meta.get("name", "?")
    if meta.get("namespace"):
        name = f"{meta['namespace']}/{name}"
    return f"{obj.get('kind', '?')} {name}"


def _error_line(obj: dict[str, Any], err: jsonschema.ValidationError, where: str) -> str:
    path = ".".join(str(p) for p in err.absolute_path) or "(root)"
    return f"{describe(obj)}: {path}: {err.message} [{where}]"


@functools.cache
def _builtin_validator(version: str, kind: str, api_version: str) -> jsonschema.Validator | None:
    schema_version = [v for v in kv.all_versions() if kv.major_minor(v) <= version][-1]
    group = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    schema_dir = f"v{schema_version}-local-strict"
    try:
        schema = kv.schema_contents(f"kubernetes-json-schema/{schema_dir}/{kind.lower()}-{group}.json", version)
    except FileNotFoundError:
        return None
    definitions = kv.schema_contents(f"kubernetes-json-schema/{schema_dir}/_definitions.json", version)
    registry = Resource.from_contents(definitions) @ (Resource.from_contents(schema) @ Registry())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def _strict(schema: dict[str, Any], *, top: bool = True) -> dict[str, Any]:
    """A CRD schema that rejects unknown fields (the API server would silently prune them)."""
    out = copy.deepcopy(schema)

    def walk(node: Any, depth: int) -> None:
        if not isinstance(node, dict):
            return
        props = node.get("properties")
        if (
            isinstance(props, dict)
            and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")
        ):
            node["additionalProperties"] = False
        for key in ("properties", "patternProperties"):
            for child in (node.get(key) or {}).values():
                walk(child, depth + 1)
        for key in ("items", "additionalProperties", "not"):
            walk(node.get(key), depth + 1)
        for key in ("allOf", "anyOf", "oneOf"):
            for child in node.get(key) or []:
                walk(child, depth + 1)

    walk(out, 0)
    if top:
        props = out.setdefault("properties", {})
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        # metadata is checked by the API server's ObjectMeta, not by the CRD: allow its standard fields only.
        props["metadata"] = _OBJECT_META
    return out


_OBJECT_META = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$", "maxLength": 253},
        "namespace": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def _crd_documents() -> Iterable[tuple[dict[str, Any], str]]:
    paths = [path for base in CRD_DIRS if base.is_dir()
             for path in sorted(base.rglob("*.yaml")) + sorted(base.rglob("*.yml"))
             if not path.name.startswith("doc-ru-") and path.parent != GENERATED]
    for path in paths + dvp_crd_files():
        try:
            docs = list(yaml.safe_load_all(path.read_text()))
        except yaml.YAMLError:
            continue
        for doc in docs:
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                yield doc, str(path.relative_to(ROOT))
    for path in sorted(OWN_SCHEMAS.glob("*.yaml")):
        yield yaml.safe_load(path.read_text()), str(path.relative_to(ROOT))


@functools.cache
def custom_schemas() -> dict[tuple[str, str], tuple[jsonschema.Validator, str]]:
    """(apiVersion, kind) -> (validator, source file) for every CRD version we can read."""
    out: dict[tuple[str, str], tuple[jsonschema.Validator, str]] = {}
    for crd, source in _crd_documents():
        spec = crd.get("spec") or {}
        group, kind = spec.get("group"), (spec.get("names") or {}).get("kind")
        for version in spec.get("versions") or []:
            schema = ((version.get("schema") or {}).get("openAPIV3Schema")) or None
            if not (group and kind and schema):
                continue
            validator = jsonschema.Draft202012Validator(_strict(schema))
            out[(f"{group}/{version['name']}", kind)] = (validator, source)
    return out


def validate_object(obj: dict[str, Any], versions: Iterable[str] | None = None) -> list[str]:
    """One line per problem (kind/name, field path, message, schema used); empty when the object is valid."""
    api_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    errors: list[str] = []
    builtin_seen = False
    for version in versions or kube_versions():
        validator = _builtin_validator(version, kind, api_version)
        if validator is None:
            continue
        builtin_seen = True
        for err in sorted(validator.iter_errors(obj), key=lambda e: list(e.absolute_path)):
            errors.append(_error_line(obj, err, f"Kubernetes {version} strict"))
    if builtin_seen:
        return errors
    found = custom_schemas().get((api_version, kind))
    if found is None:
        return [
            f"{describe(obj)}: no schema for {api_version} {kind}: not a built-in kind of Kubernetes "
            f"{'/'.join(versions or kube_versions())}, and no CRD in crds/ or .cache/upstream "
            "(run `make upstream` to fetch the upstream CRDs) nor in testkit/harness/schemas"
        ]
    validator, source = found
    for err in sorted(validator.iter_errors(obj), key=lambda e: list(e.absolute_path)):
        errors.append(_error_line(obj, err, source))
    return errors


def validate_objects(objects: Iterable[dict[str, Any]], versions: Iterable[str] | None = None) -> list[str]:
    errors: list[str] = []
    for obj in objects:
        errors.extend(validate_object(obj, versions))
    return errors

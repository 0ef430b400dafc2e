# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Validation of documents against the module's OpenAPI schemas (candi/openapi/*.yaml, openapi/*.yaml).

Errors name the object and the field and describe the rule from the schema side only: jsonschema's own
messages quote the instance, which may be a kubeconfig."""

import functools
import os

from lib.errors import InvalidInput

MODULE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.cache
def load(relpath: str, api_version: str | None = None) -> dict:
    """The schema in a module file: a candi-style document (apiVersions[].openAPISpec) or a plain schema."""
    import yaml

    path = os.path.join(MODULE_ROOT, relpath)
    if not os.path.exists(path):
        raise FileNotFoundError(f"schema {relpath} is missing from the module")
    with open(path, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - safe loader
    if "apiVersions" in doc:
        versions = {v["apiVersion"]: v["openAPISpec"] for v in doc["apiVersions"]}
        if api_version not in versions:
            api_version = next(iter(versions))
        doc = versions[api_version]
    return _openapi_to_jsonschema(doc)


def _openapi_to_jsonschema(node):
    """OpenAPI's nullable has no JSON Schema meaning; the rest of the dialect validates as is."""
    if isinstance(node, list):
        return [_openapi_to_jsonschema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _openapi_to_jsonschema(v) for k, v in node.items() if not k.startswith("x-")}
    if out.pop("nullable", False) and "type" in out:
        out["type"] = [out["type"], "null"] if isinstance(out["type"], str) else [*out["type"], "null"]
    return out


def validate(doc, schema: dict, obj: str, field: str) -> None:
    import jsonschema

    errors = sorted(
        jsonschema.Draft4Validator(schema).iter_errors(doc),
        key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path], e.validator),
    )
    if errors:
        err = errors[0]
        raise InvalidInput(obj, _join(field, list(err.absolute_path), err), _describe(err))


def _join(field: str, path: list, err) -> str:
    out = field
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    if err.validator == "required":
        missing = [p for p in err.validator_value if isinstance(err.instance, dict) and p not in err.instance]
        if missing:
            out += f".{missing[0]}"
    return out


def _describe(err) -> str:
    v, want = err.validator, err.validator_value
    if v == "required":
        return "is required"
    if v == "type":
        return f"must be of type {want if isinstance(want, str) else ' or '.join(want)}"
    if v == "enum":
        return "must be one of " + ", ".join(str(w) for w in want)
    if v == "pattern":
        return f"must match {want}"
    if v == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        return "unknown field(s) " + ", ".join(str(e) for e in extra)
    if v in ("minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "minProperties"):
        return f"violates {v} {want}"
    if v == "uniqueItems":
        return "must hold unique items"
    return f"violates {v}"

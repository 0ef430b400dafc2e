# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Validation against the module's OpenAPI schemas (candi/openapi/*.yaml) by the keywords they use: the one
validator the hooks and dhctl's validator judge DVPClusterConfiguration, DVPInstanceClass and the discovery data
by.

A small validator instead of jsonschema: importing jsonschema costs a hook more than its whole run budget (it
saves 89-115 ms CPU, 110-130 ms wall, per hook process that validates: bench/hooks.py figure
`hooks.import.schema_subset.saving_cpu`; bench/README.md).
Unknown keywords are refused when a schema is selected (`check_keywords`), so a schema that grows beyond this
subset fails loudly instead of validating less (hooks/lib/schema_test.py checks agreement with jsonschema).
Patterns are RE2, as Deckhouse evaluates them (dvp_common.patterns). A violation names the field and describes
the rule from the schema side only: the instance may be a kubeconfig. Pure: reading the schema files is the
caller's."""

from . import patterns

CHECKED = {"type", "enum", "required", "properties", "additionalProperties", "items", "pattern", "minLength",
           "maxLength", "minimum", "maximum", "minItems", "maxItems", "uniqueItems", "nullable", "anyOf"}
IGNORED = {"description", "default", "format", "example", "title"}
TYPES = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "integer": lambda x: isinstance(x, int) and not isinstance(x, bool)
    or isinstance(x, float) and x.is_integer(),
    "number": lambda x: isinstance(x, int | float) and not isinstance(x, bool),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
}


def select(doc: dict, where: str, api_version: str | None = None) -> dict:
    """The schema in a module file's document (a candi-style apiVersions[].openAPISpec, or a plain schema), its
    keywords checked (ValueError naming `where` and the keyword)."""
    if "apiVersions" in doc:
        versions = {v["apiVersion"]: v["openAPISpec"] for v in doc["apiVersions"]}
        doc = versions.get(api_version) or next(iter(versions.values()))
    check_keywords(doc, where)
    return doc


def check_keywords(node: dict, where: str) -> None:
    unknown = {k for k in node if k not in CHECKED | IGNORED and not k.startswith("x-")}
    if unknown:
        raise ValueError(f"schema {where} uses unsupported keyword(s) {', '.join(sorted(unknown))}")
    if "pattern" in node:
        try:
            patterns.compile(node["pattern"])
        except patterns.PatternError as exc:
            raise ValueError(f"schema {where}: pattern {exc}") from None
    for key, sub in (node.get("properties") or {}).items():
        check_keywords(sub, f"{where}.{key}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            check_keywords(node[key], f"{where}.{key}")
    for i, alternative in enumerate(node.get("anyOf") or []):
        check_keywords(alternative, f"{where}.anyOf[{i}]")


def first_error(x, s: dict, path: tuple) -> tuple[tuple, str] | None:
    """The first violation, checking a node before its children (the shallowest field is reported)."""
    if "anyOf" in s and all(first_error(x, alternative, path) for alternative in s["anyOf"]):
        return path, "must be " + " or ".join(_describe(a) for a in s["anyOf"])
    types = s.get("type")
    if types is not None:
        allowed = [types] if isinstance(types, str) else list(types)
        if s.get("nullable"):
            allowed.append("null")
        if not any(TYPES[t](x) for t in allowed):
            return path, "must be of type " + " or ".join(allowed)
        if x is None:
            return None
    if "enum" in s and x not in s["enum"]:
        return path, "must be one of " + ", ".join(str(e) for e in s["enum"])
    if isinstance(x, str):
        # RE2, as Deckhouse evaluates the schema: `$` is the end of the text, not "before a final newline"
        if "pattern" in s and not patterns.search(s["pattern"], x):
            return path, f"must match {s['pattern']}"
        for key, bad in (("minLength", len(x) < s.get("minLength", 0)),
                         ("maxLength", "maxLength" in s and len(x) > s["maxLength"])):
            if bad:
                return path, f"violates {key} {s[key]}"
    if TYPES["number"](x):
        for key, bad in (("minimum", "minimum" in s and x < s["minimum"]),
                         ("maximum", "maximum" in s and x > s["maximum"])):
            if bad:
                return path, f"violates {key} {s[key]}"
    if isinstance(x, dict):
        for name in s.get("required") or []:
            if name not in x:
                return (*path, name), "is required"
        props = s.get("properties") or {}
        extra = s.get("additionalProperties", True)
        if extra is False:
            unknown = sorted(k for k in x if k not in props)
            if unknown:
                return path, "unknown field(s) " + ", ".join(unknown)
        for key, value in x.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                found = first_error(value, sub, (*path, key))
                if found:
                    return found
    if isinstance(x, list):
        for key, bad in (("minItems", len(x) < s.get("minItems", 0)),
                         ("maxItems", "maxItems" in s and len(x) > s["maxItems"])):
            if bad:
                return path, f"violates {key} {s[key]}"
        if s.get("uniqueItems") and len({repr(i) for i in x}) != len(x):
            return path, "must hold unique items"
        if isinstance(s.get("items"), dict):
            for i, item in enumerate(x):
                found = first_error(item, s["items"], (*path, i))
                if found:
                    return found
    return None


def _describe(s: dict) -> str:
    """An anyOf alternative in words, from the schema side only (the value may be a secret)."""
    out = " or ".join([s["type"]] if isinstance(s.get("type"), str) else s.get("type") or ["any value"])
    if "pattern" in s:
        out += f" matching {s['pattern']}"
    if "minimum" in s:
        out += f" of at least {s['minimum']}"
    return out

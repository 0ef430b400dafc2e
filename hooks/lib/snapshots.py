# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reading snapshots delivered with keepFullObjectsInMemory: false (only filterResult is present), and decoding
the Secret data they carry into text, YAML or JSON with one-line errors that never echo the content."""

import json

from lib import b64
from lib.errors import InvalidInput


def results(ctx, name: str) -> list:
    """The non-null filterResults of one snapshot, in delivery order."""
    return [item["filterResult"] for item in ctx.snapshots.get(name, []) if item.get("filterResult") is not None]


def first(ctx, name: str):
    found = results(ctx, name)
    return found[0] if found else None


def b64text(value, obj: str, field: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(obj, field, "must be a base64 string")
    try:
        return b64.decode(value).decode("utf-8")
    except ValueError:  # b64.Error is one too
        raise InvalidInput(obj, field, "is not valid base64 of UTF-8 text") from None


def parse_yaml(text: str, obj: str, field: str):
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise InvalidInput(obj, field, f"is not valid YAML{where}") from None


def parse_json(text: str, obj: str, field: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(obj, field, f"is not valid JSON at line {exc.lineno} column {exc.colno}") from None


def require_mapping(doc, obj: str, field: str) -> dict:
    if not isinstance(doc, dict):
        raise InvalidInput(obj, field, "must be a mapping")
    return doc

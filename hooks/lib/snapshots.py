# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Reading snapshots delivered with keepFullObjectsInMemory: false (only filterResult is present), and decoding
the Secret data they carry into text, YAML or JSON with one-line errors that never echo the content."""

import json

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
    import base64  # only the hooks that decode a Secret's text here (discovery, legacy configuration) pay it

    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except ValueError:  # binascii.Error is one too
        raise InvalidInput(obj, field, "is not valid base64 of UTF-8 text") from None


MAX_NODES = 100_000  # a configuration has hundreds; aliases can make a small document expand beyond any memory
MAX_DEPTH = 64


def parse_yaml(text: str, obj: str, field: str):
    """YAML as Kubernetes reads it into JSON: timestamps stay strings, keys become strings, and a document that
    cannot be JSON (NaN, Infinity, binary) or expands without bound through aliases is refused."""
    import yaml

    try:
        doc = yaml.load(text, Loader=_loader(yaml))  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise InvalidInput(obj, field, f"is not valid YAML{where}") from None
    except RecursionError:
        raise InvalidInput(obj, field, "is not valid YAML: nested too deeply") from None
    return _as_json(doc, obj, field)


def _loader(yaml):
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    if "_JSONLoader" not in _LOADERS:
        resolvers = {k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
                     for k, v in base.yaml_implicit_resolvers.items()}
        _LOADERS["_JSONLoader"] = type("_JSONLoader", (base,), {"yaml_implicit_resolvers": resolvers})
    return _LOADERS["_JSONLoader"]


_LOADERS: dict = {}


def _key(k) -> str:
    # as sigs.k8s.io/yaml writes a non-string key into JSON
    return "true" if k is True else "false" if k is False else "null" if k is None else str(k)


def _as_json(doc, obj: str, field: str):
    """The document with string keys, checked to be JSON data, within MAX_NODES (aliases counted each time
    they are used) and MAX_DEPTH; walked without recursion."""
    root = [doc]
    stack = [(root, 0, doc, 0)]
    seen = 0
    while stack:
        parent, slot, node, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES or depth > MAX_DEPTH:
            raise InvalidInput(obj, field, f"is too large (more than {MAX_NODES} values or {MAX_DEPTH} levels, "
                                           "aliases expanded)")
        if isinstance(node, dict):
            # a copy: an alias shares its object, and each use must be a value of its own
            node = {k if isinstance(k, str) else _key(k): x for k, x in node.items()}
            parent[slot] = node
            stack.extend((node, k, x, depth + 1) for k, x in node.items())
        elif isinstance(node, list):
            node = list(node)
            parent[slot] = node
            stack.extend((node, i, x, depth + 1) for i, x in enumerate(node))
        elif isinstance(node, float) and node != node or node in (_INF, -_INF):
            raise InvalidInput(obj, field, "is not valid: .nan and .inf are not JSON numbers")
        elif not (node is None or isinstance(node, str | int | float)):
            raise InvalidInput(obj, field, f"is not valid: a {type(node).__name__} value is not JSON data")
    return root[0]


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (_INF, -_INF):
        raise ValueError("number out of range")
    return value


_INF = float("inf")


def parse_json(text: str, obj: str, field: str):
    """JSON as Go's encoding/json reads it: no NaN or Infinity, no number beyond float64's range (Python would
    accept them and write values that addon-operator cannot read back)."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise InvalidInput(obj, field, f"is not valid JSON at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise InvalidInput(obj, field, "is not valid JSON: nested too deeply") from None
    except ValueError:  # NaN/Infinity, a float out of range, an integer of more digits than int() converts
        raise InvalidInput(obj, field, "is not valid JSON: a number is out of range") from None


def require_mapping(doc, obj: str, field: str) -> dict:
    if not isinstance(doc, dict):
        raise InvalidInput(obj, field, "must be a mapping")
    return doc

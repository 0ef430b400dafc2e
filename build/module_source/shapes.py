# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The shapes of the JSON documents a registry sends (manifests, indexes, descriptors, image configs, error and
token replies), checked before any field is used: a document of the wrong shape at any level is one SourceError
naming the document and the field (`<where>: <field> must be <kind>, got <what came>`), never a traceback."""

from __future__ import annotations

import json
import re
from typing import Any

from . import SourceError

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_KINDS = {"an object": dict, "a list": list, "a string": str}


def describe(value: Any) -> str:
    """What came, in a few characters of one line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "a list"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def load(raw: bytes, where: str, what: str) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise SourceError(f"{where}: {what} is not JSON") from None


def check(value: Any, kind: str, where: str, name: str) -> Any:
    ok = isinstance(value, int) and not isinstance(value, bool) if kind == "an integer" else \
        isinstance(value, _KINDS[kind])
    if not ok:
        raise SourceError(f"{where}: {name} must be {kind}, got {describe(value)}")
    return value


def top(doc: Any, where: str, name: str) -> dict:
    return check(doc, "an object", where, name)


def get(doc: dict, key: str, kind: str, where: str, name: str, default: Any = ...) -> Any:
    """doc[key] of `kind`; absent (or null) is `default`, or an error when none is given."""
    value = doc.get(key)
    if value is None:
        if default is ...:
            raise SourceError(f"{where}: {name}.{key} is missing")
        return default
    return check(value, kind, where, f"{name}.{key}")


def items(doc: dict, key: str, where: str, name: str, cap: int) -> list:
    out = get(doc, key, "a list", where, name, [])
    if len(out) > cap:
        raise SourceError(f"{where}: {name}.{key} has {len(out)} entries, more than {cap}")
    return out


def descriptor(value: Any, where: str, name: str, max_size: int) -> dict:
    """An OCI descriptor: `digest` a sha256 digest, `size` an integer from 0 to `max_size`."""
    desc = check(value, "an object", where, name)
    digest = get(desc, "digest", "a string", where, name)
    if not DIGEST.fullmatch(digest):
        raise SourceError(f"{where}: {name}.digest {describe(digest)} is not a sha256 digest")
    size = get(desc, "size", "an integer", where, name)
    if not 0 <= size <= max_size:
        raise SourceError(f"{where}: {name}.size {size} is outside 0..{max_size}")
    get(desc, "mediaType", "a string", where, name, "")
    return desc

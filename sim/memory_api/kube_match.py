# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the in-memory API (sim.memory_api) does as kube-apiserver does: JSON merge patches and label/field
selectors."""

from __future__ import annotations

import copy
from typing import Any


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: `null` removes a key, objects merge, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def label_match(labels: dict[str, str], sel: str | None) -> bool:
    """Selector terms joined by ',': k=v, k==v, k!=v, k (exists), !k (absent)."""
    for term in filter(None, (t.strip() for t in (sel or "").split(","))):
        if "!=" in term:
            k, v = term.split("!=", 1)
            if labels.get(k.strip()) == v.strip():
                return False
        elif "=" in term:
            k, v = term.replace("==", "=").split("=", 1)
            if labels.get(k.strip()) != v.strip():
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def field_match(obj: dict[str, Any], sel: str | None) -> bool:
    """The field selectors every kind serves: metadata.name and metadata.namespace."""
    md = obj.get("metadata") or {}
    return label_match({"metadata.name": md.get("name", ""), "metadata.namespace": md.get("namespace", "")}, sel)

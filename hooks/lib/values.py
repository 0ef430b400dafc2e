# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Dotted-path access to the module values (plain dicts, as addon-operator delivers them).

Writes copy the mappings on their path before changing them (copy on write): a hook run starts from a shallow
copy of the values (lib/hookrun.py), so the values it was given, which the patches are computed against, are
never changed, and no run pays for a deep copy of large values. Hooks change values only through here."""

from typing import Any

MODULE = "cloudProviderDvp"
NAMESPACE = "d8-cloud-provider-dvp"
_MISSING = object()


def _segments(path: str | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(path.split(".")) if isinstance(path, str) else path


def get(values: dict, path: str | tuple[str, ...], default: Any = None) -> Any:
    node: Any = values
    for key in _segments(path):
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node


def set_(values: dict, path: str | tuple[str, ...], value: Any) -> None:
    *parents, leaf = _segments(path)
    node = values
    for key in parents:
        child = node.get(key)
        node[key] = dict(child) if isinstance(child, dict) else {}
        node = node[key]
    node[leaf] = value


def delete(values: dict, path: str | tuple[str, ...]) -> None:
    *parents, leaf = _segments(path)
    found = get(values, tuple(parents)) if parents else values
    if not isinstance(found, dict) or leaf not in found:
        return
    node = values
    for key in parents:
        node[key] = dict(node[key])
        node = node[key]
    del node[leaf]


def internal(name: str) -> str:
    return f"{MODULE}.internal.{name}"


def module(name: str) -> str:
    return f"{MODULE}.{name}"

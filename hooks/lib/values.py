# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Dotted-path access to the module values (plain dicts, as addon-operator delivers them)."""

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
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[leaf] = value


def delete(values: dict, path: str | tuple[str, ...]) -> None:
    *parents, leaf = _segments(path)
    node = get(values, tuple(parents)) if parents else values
    if isinstance(node, dict):
        node.pop(leaf, None)


def internal(name: str) -> str:
    return f"{MODULE}.internal.{name}"


def module(name: str) -> str:
    return f"{MODULE}.{name}"

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dhctl's request payload (`input_json`) decoded into a typed Input. A payload that is not that shape is
BadInput (the server answers InvalidArgument): the check could not be made, which is never "valid"."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

PROVIDER = "dvp"
OPERATIONS = ("bootstrap", "converge", "destroy")


class BadInput(ValueError):
    pass


@dataclass(frozen=True)
class Input:
    operation: str
    cluster_prefix: str = ""
    layout: str = ""
    provider_cluster_configuration: dict[str, Any] | None = None
    settings: dict[str, Any] | None = None
    node_groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    instance_classes: dict[str, dict[str, Any]] = field(default_factory=dict)
    secrets: dict[str, dict[str, Any]] = field(default_factory=dict)


def _objects(vars_: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    value = vars_.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise BadInput(f"input_json: vars.{key} must be a map of name to object")
    return value


def parse(raw: bytes) -> Input:
    try:
        doc = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = getattr(exc, "pos", 0)
        raise BadInput(f"input_json is not JSON: {exc.__class__.__name__} at position {where}") from None
    if not isinstance(doc, dict):
        raise BadInput("input_json must be a JSON object")
    if doc.get("providerName", PROVIDER) != PROVIDER:
        raise BadInput(f"input_json: providerName must be {PROVIDER!r}, got {doc.get('providerName')!r}")
    operation = doc.get("operation")
    if operation not in OPERATIONS:
        raise BadInput(f"input_json: operation must be one of {', '.join(OPERATIONS)}, got {operation!r}")
    vars_ = doc.get("vars") or {}
    pcc = doc.get("providerClusterConfiguration")
    if not isinstance(vars_, dict) or not (pcc is None or isinstance(pcc, dict)):
        raise BadInput("input_json: vars and providerClusterConfiguration must be objects")
    settings = vars_.get("settings")
    if settings is not None and not isinstance(settings, dict):
        raise BadInput("input_json: vars.settings must be the ModuleConfig object")
    return Input(
        operation=operation,
        cluster_prefix=str(doc.get("clusterPrefix") or ""),
        layout=str(doc.get("layout") or ""),
        provider_cluster_configuration=pcc or None,
        settings=settings,
        node_groups=_objects(vars_, "nodeGroups"),
        instance_classes=_objects(vars_, "instanceClasses"),
        secrets=_objects(vars_, "secrets"),
    )

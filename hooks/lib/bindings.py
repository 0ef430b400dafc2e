# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Builders for hook configs. A config is a dict printed as JSON, which is YAML, for shell-operator."""

import json


def kubernetes(name: str, kind: str, jq_filter: str, *, api_version: str = "v1", namespace: str | None = None,
               names: list[str] | None = None, group: str = "main", **extra) -> dict:
    b = {"name": name, "group": group, "apiVersion": api_version, "kind": kind}
    if namespace:
        b["namespace"] = {"nameSelector": {"matchNames": [namespace]}}
    if names:
        b["nameSelector"] = {"matchNames": names}
    b.update(extra)
    b["jqFilter"] = jq_filter
    b["keepFullObjectsInMemory"] = False
    return b


def render(config: dict) -> str:
    return json.dumps({"configVersion": "v1", **config}, indent=2)

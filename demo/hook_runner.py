# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Runs the module's hooks the way shell-operator does, against a real guest API.

For each hook file: `--config`; every kubernetes binding's objects are listed from the API (namespace, name,
label and field selectors), filtered by the binding's own jqFilter through .bin/gojq; the hook runs as a process
with the env-file protocol (hooks/lib/testing.run_process); its values patches are applied to the values and its
Kubernetes operations to the API. A kind the API does not serve gives an empty snapshot (said in the report).
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
from dvp_common.kube import KubeClient, NotFound

from demo.kube import Kinds, NotServed, apply

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOOKS_DIR = os.path.join(ROOT, "hooks")


class HookFailed(RuntimeError):
    pass


@dataclass
class HookReport:
    hook: str
    stage: str
    values_patches: int
    kube_operations: int
    unserved: list[str] = field(default_factory=list)


def hook_files() -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(HOOKS_DIR, "*.py")) if not p.endswith("_test.py"))


def _testing():
    from lib import testing  # hooks/lib, on the import path (pyproject pythonpath)

    return testing


def _selector(sel: dict[str, Any] | None) -> str | None:
    if not sel:
        return None
    parts = [f"{k}={v}" for k, v in (sel.get("matchLabels") or {}).items()]
    for e in sel.get("matchExpressions") or []:
        key = e.get("key") or e.get("field")
        op = e["operator"]
        if op in ("Equals", "="):
            parts.append(f"{key}={e['value']}")
        elif op in ("NotEquals", "!="):
            parts.append(f"{key}!={e['value']}")
        elif op == "In":
            parts.append(f"{key} in ({','.join(e['values'])})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(e['values'])})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
    return ",".join(parts) or None


def binding_objects(client: KubeClient, kinds: Kinds, b: dict[str, Any]) -> list[dict[str, Any]]:
    res = kinds.resource(b["apiVersion"], b["kind"])
    namespaces: list[str | None] = [None]
    if res.namespaced and (b.get("namespace") or {}).get("nameSelector"):
        namespaces = list(b["namespace"]["nameSelector"]["matchNames"])
    names = set((b.get("nameSelector") or {}).get("matchNames") or [])
    labels = _selector(b.get("labelSelector"))
    fields = _selector(b.get("fieldSelector"))
    out: list[dict[str, Any]] = []
    for ns in namespaces:
        items = client.list(res, ns, label_selector=labels, field_selector=fields).items
        out += [o for o in items if not names or o["metadata"]["name"] in names]
    for o in out:  # full objects as the API returns them from a watch
        o.setdefault("apiVersion", b["apiVersion"])
        o.setdefault("kind", b["kind"])
    return sorted(out, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))


class HookRunner:
    def __init__(self, client: KubeClient, values: dict[str, Any], module_key: str = "cloudProviderDvp") -> None:
        self.client = client
        self.kinds = Kinds(client)
        self.values = values
        self.module_key = module_key
        self.configs = {p: _testing().process_config(p) for p in hook_files()}
        self.runs = 0
        self.operations_applied = 0

    def ordered(self, stage: str) -> list[str]:
        staged = [(c[stage], p) for p, c in self.configs.items() if stage in c]
        return [p for _, p in sorted(staged)]

    def snapshots(self, config: dict[str, Any], unserved: list[str]) -> dict[str, list]:
        testing = _testing()
        snaps: dict[str, list] = {}
        for b in config.get("kubernetes", []):
            try:
                objects = binding_objects(self.client, self.kinds, b)
            except NotServed:
                unserved.append(f"{b['kind']}.{b['apiVersion']}")
                objects = []
            snaps[b["name"]] = [{"filterResult": testing.jq(b["jqFilter"], o)} for o in objects]
        return snaps

    def run(self, path: str, stage: str) -> HookReport:
        testing = _testing()
        config = self.configs[path]
        unserved: list[str] = []
        snaps = self.snapshots(config, unserved)
        context = [{"binding": stage, "snapshots": snaps}]
        config_values = {self.module_key: {k: v for k, v in self.values.get(self.module_key, {}).items()
                                           if k != "internal"}}
        run = testing.run_process(path, context, self.values, config_values)
        self.runs += 1
        name = os.path.basename(path)
        if run.returncode != 0:
            raise HookFailed(f"{name}: exit {run.returncode}: {run.stderr.strip().splitlines()[-1:]}")
        for patch in run.values_patches:
            self.values = jsonpatch.apply_patch(self.values, _values_ops(patch, self.module_key))
        for op in run.kube_operations:
            self.apply_operation(op)
        return HookReport(name, stage, len(run.values_patches), len(run.kube_operations), unserved)

    def run_stage(self, stage: str) -> list[HookReport]:
        return [self.run(p, stage) for p in self.ordered(stage)]

    def apply_operation(self, op: dict[str, Any]) -> None:
        """CreateOrUpdate / Create / CreateIfNotExists / Delete* / MergePatch / JSONPatch, as shell-operator."""
        operation = op.get("operation", "CreateOrUpdate")
        if operation.startswith("Create"):
            obj = op["object"] if isinstance(op["object"], dict) else json.loads(op["object"])
            if operation == "CreateIfNotExists":
                res = self.kinds.resource(obj["apiVersion"], obj["kind"])
                try:
                    self.client.get(res, obj["metadata"]["name"], obj["metadata"].get("namespace"))
                    return
                except NotFound:
                    pass
            apply(self.client, self.kinds, obj)
        else:
            res = self.kinds.resource(op["apiVersion"], op["kind"])
            ns, name = op.get("namespace") or None, op["name"]
            if operation.startswith("Delete"):
                with contextlib.suppress(NotFound):
                    self.client.delete(res, name, ns)
            elif operation in ("MergePatch", "JSONPatch"):
                body = op.get("mergePatch") if operation == "MergePatch" else op.get("jsonPatch")
                ptype = "merge" if operation == "MergePatch" else "json"
                self.client.patch(res, name, body, ns, patch_type=ptype, subresource=op.get("subresource"))
            else:
                raise HookFailed(f"unsupported Kubernetes operation {operation}")
        self.operations_applied += 1


def _values_ops(patch: Any, module_key: str) -> list[dict[str, Any]]:
    """One line of VALUES_JSON_PATCH_PATH: a list of operations (or one) with paths from the values root."""
    ops = patch if isinstance(patch, list) else [patch]
    return ops

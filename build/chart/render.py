# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Render the module chart the way Deckhouse does, in-process (helm_python) or through the helm v3 CLI.

`render_module()` returns the rendered objects in a stable order (template path, then document order).
`python -m chart.render [--all-on] [--set-json PATH=JSON ...]` prints them as multi-document YAML.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_VALUES = Path(__file__).with_name("example_values.yaml")
RELEASE = "cloud-provider-dvp"
NAMESPACE = "d8-cloud-provider-dvp"
MODULE_KEY = "cloudProviderDvp"

# Optional APIs the templates probe with .Capabilities.APIVersions.Has; a Deckhouse cluster serves them all.
API_VERSIONS = (
    "autoscaling.k8s.io/v1",
    "autoscaling.k8s.io/v1/VerticalPodAutoscaler",
    "cilium.io/v2",
    "cilium.io/v2/CiliumNetworkPolicy",
    "monitoring.coreos.com/v1",
    "monitoring.coreos.com/v1/PodMonitor",
    "monitoring.coreos.com/v1/PrometheusRule",
    "snapshot.storage.k8s.io/v1",
    "snapshot.storage.k8s.io/v1/VolumeSnapshotClass",
)


# libyaml's loader: the pure-Python one would take ten times longer than Helm itself.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class RenderError(Exception):
    """The chart did not render; the message is Helm's, naming the template and the failing value."""


def example_values() -> dict[str, Any]:
    """A fresh copy of build/chart/example_values.yaml."""
    return copy.deepcopy(_example_values_cached())


@functools.cache
def _example_values_cached() -> dict[str, Any]:
    return yaml.load(EXAMPLE_VALUES.read_text(), Loader=_LOADER)  # noqa: S506 (a safe loader, C or Python)


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Merge override into a copy of base; a None value deletes the key (to test absent values)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


ALL_ON = {
    MODULE_KEY: {
        "nodes": {"disabled": False},
        "ccm": {"disabled": False},
        "storage": {"disabled": False, "snapshots": {"disabled": False}},
        "internal": {"disableLoadBalancer": False},
    }
}


def module_values(values_overrides: dict[str, Any] | None = None, *, all_on: bool = False) -> dict[str, Any]:
    values = _example_values_cached()  # deep_merge copies; the cached dict is never changed
    if all_on:
        values = deep_merge(values, ALL_ON)
    if values_overrides:
        values = deep_merge(values, values_overrides)
    return values if values is not _example_values_cached() else example_values()


def _kube_version(kube_version: str) -> str:
    version = kube_version.lstrip("v")
    if version.count(".") == 1:
        version += ".0"
    return "v" + version


@functools.cache
def _chart():
    import helm_python

    return helm_python.Chart.load(str(ROOT))


def render_files(values: dict[str, Any], kube_version: str = "1.30") -> dict[str, str]:
    """Template path -> rendered text, through the Helm engine linked in-process (helm_python)."""
    import helm_python
    from helm_python import _native  # the public render() has no kube_version/api_versions

    options = {
        "name": RELEASE,
        "namespace": NAMESPACE,
        "kube_version": _kube_version(kube_version),
        "api_versions": list(API_VERSIONS),
    }
    try:
        raw = _native.call_string("helm_render", _chart()._raw(), json.dumps(values), json.dumps(options))
    except helm_python.HelmError as exc:
        raise RenderError(str(exc)) from exc
    return json.loads(raw)


def parse_files(files: dict[str, str]) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for path in sorted(files):
        if not path.endswith((".yaml", ".yml")):
            continue
        for doc in yaml.load_all(files[path], Loader=_LOADER):  # noqa: S506 (a safe loader)
            if doc:
                objects.append(doc)
    return objects


def render_values(values: dict[str, Any], kube_version: str = "1.30") -> list[dict[str, Any]]:
    """Render the module with exactly these values (no example values merged in)."""
    return parse_files(render_files(values, kube_version))


def render_values_cli(values: dict[str, Any], kube_version: str = "1.30") -> list[dict[str, Any]]:
    """The same through the pinned helm v3 CLI."""
    return parse_files(render_files_cli(values, kube_version))


def render_module(
    values_overrides: dict[str, Any] | None = None, *, all_on: bool = False, kube_version: str = "1.30"
) -> list[dict[str, Any]]:
    """Render the whole module with the example values plus overrides; returns the objects."""
    return parse_files(render_files(module_values(values_overrides, all_on=all_on), kube_version))


def helm_binary() -> str:
    path = ROOT / ".bin" / "helm"
    if path.exists():
        return str(path)
    found = shutil.which("helm")
    if found:
        return found
    raise RuntimeError("helm CLI not found: run `make tools` (tools/build helm) to build the pinned helm v3")


def render_files_cli(values: dict[str, Any], kube_version: str = "1.30") -> dict[str, str]:
    """Template path -> rendered text, through the pinned helm v3 CLI (`helm template`)."""
    with tempfile.TemporaryDirectory() as tmp:
        values_file = Path(tmp) / "values.json"
        values_file.write_text(json.dumps(values))
        cmd = [helm_binary(), "template", RELEASE, str(ROOT), "--namespace", NAMESPACE,
               "--kube-version", _kube_version(kube_version), "-f", str(values_file)]
        for api in API_VERSIONS:
            cmd += ["--api-versions", api]
        env = dict(os.environ, HELM_CACHE_HOME=tmp, HELM_CONFIG_HOME=tmp, HELM_DATA_HOME=tmp)
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RenderError(proc.stderr.strip())
    files: dict[str, list[str]] = {}
    # The CLI prints every document as "---\n# Source: <template path>\n<document>\n".
    parts = re.split(r"^---\n# Source: (.*)\n", proc.stdout, flags=re.MULTILINE)
    for path, doc in zip(parts[1::2], parts[2::2], strict=True):
        files.setdefault(path, []).append(doc)
    return {path: "\n---\n".join(docs) for path, docs in files.items()}


def dump(objects: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(objects, sort_keys=False, explicit_start=True)


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chart.render", description=__doc__)
    parser.add_argument("--all-on", action="store_true", help="enable every component (nodes, ccm, storage, snapshots)")
    parser.add_argument("--kube-version", default="1.30")
    parser.add_argument("--set-json", action="append", default=[], metavar="PATH=JSON",
                        help="override one value, e.g. cloudProviderDvp.storage.disabled=true")
    args = parser.parse_args(argv)
    overrides: dict[str, Any] = {}
    for item in args.set_json:
        path, _, raw = item.partition("=")
        node = overrides
        keys = path.split(".")
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = json.loads(raw)
    try:
        objects = render_module(overrides, all_on=args.all_on, kube_version=args.kube_version)
    except RenderError as exc:
        print(f"render failed: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(dump(objects))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())

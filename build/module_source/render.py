# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The chart of an unpacked module rendered as Deckhouse renders an external module: the harness's example values
with every component on, `global.modulesImages.digests.cloudProviderDvp` = the module's images_digests.json and
the module's `registry.base` = `<repo>/cloud-provider-dvp` (Deckhouse sets it for a module from a ModuleSource;
the common images stay on the global base). Rendered in-process by the Helm engine (helm_python), from the chart
directory given: the unpacked module, or the source tree when parity.compare holds the two side by side."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from chart import render as chart_render

from . import SourceError

KUBE_VERSION = "v1.30.0"


def values(digests: dict[str, str], base: str, enabled_modules: Sequence[str] | None = None) -> dict[str, Any]:
    """The values to render with; `enabled_modules` replaces `global.enabledModules` (default: the example values'
    list; parity.variants switches every optional module the templates react to on, then off)."""
    out = chart_render.module_values(all_on=True)
    if enabled_modules is not None:
        out["global"]["enabledModules"] = list(enabled_modules)
    out["global"]["modulesImages"]["digests"][chart_render.MODULE_KEY] = dict(digests)  # replaced, not merged
    out[chart_render.MODULE_KEY]["registry"] = {"base": base}
    return out


def chart(chart_dir: Path, chart_values: dict[str, Any], *, version: str | None = None) -> list[dict[str, Any]]:
    """The chart's rendered objects; with `version`, rendered as if its Chart.yaml said that version."""
    import helm_python

    try:
        loaded = helm_python.Chart.load(str(chart_dir))
    except helm_python.HelmError as exc:
        raise SourceError(f"chart {chart_dir}: cannot load: {str(exc).splitlines()[0]}") from None
    try:
        if version is None:
            return _render(loaded, chart_dir, chart_values)
        # Helm writes out the chart as it loaded it (its .helmignore applied) and only that copy's Chart.yaml gets
        # the version: the rest is the chart itself, without symlinks (Helm logs each one it follows) and without
        # editing rendered objects (that would guess where a version lands).
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(loaded.save_dir(tmp))
            meta = yaml.safe_load((copy / "Chart.yaml").read_text())
            meta["version"] = version
            (copy / "Chart.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
            try:
                restamped = helm_python.Chart.load(str(copy))
            except helm_python.HelmError as exc:
                raise SourceError(f"chart {chart_dir} at version {version}: cannot load: "
                                  f"{str(exc).splitlines()[0]}") from None
            try:
                return _render(restamped, chart_dir, chart_values)
            finally:
                restamped.close()
    finally:
        loaded.close()


def _render(loaded, chart_dir: Path, chart_values: dict[str, Any]) -> list[dict[str, Any]]:
    import helm_python
    from helm_python import _native  # the public render() takes no kube_version/api_versions

    options = {"name": chart_render.RELEASE, "namespace": chart_render.NAMESPACE, "kube_version": KUBE_VERSION,
               "api_versions": list(chart_render.API_VERSIONS)}
    try:
        raw = _native.call_string("helm_render", loaded._raw(), json.dumps(chart_values), json.dumps(options))
    except helm_python.HelmError as exc:
        raise SourceError(f"chart {chart_dir}: render failed: {str(exc).splitlines()[0]}") from None
    return chart_render.parse_files(json.loads(raw))


def images(objects: list[dict[str, Any]]) -> list[str]:
    """Every container image the rendered objects name (containers, initContainers), sorted, once each."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("containers", "initContainers"):
                for container in node.get(key) or []:
                    if isinstance(container, dict) and isinstance(container.get("image"), str):
                        found.add(container["image"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(objects)
    return sorted(found)

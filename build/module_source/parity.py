# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Render parity: the unpacked module renders exactly what the source tree renders, with every optional module the
templates react to switched on and again with all of them off (a file the image lacks, read through `.Files`,
renders nothing only when the module that shows it is on: the Grafana dashboards need prometheus-crd)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from chart import render as chart_render
from module_release import ReleaseError, chart_scan

from . import SourceError, render


def optional_modules(*roots: Path) -> list[str]:
    """The modules the templates of these charts test in global.enabledModules, sorted, once each."""
    found: set[str] = set()
    for root in roots:
        try:
            found.update(chart_scan.modules(root))
        except (ReleaseError, RecursionError) as exc:
            raise SourceError(f"render parity: {root}: {exc if isinstance(exc, ReleaseError) else 'nesting too deep'}"
                              ) from None
    return sorted(found)


def variants(modules: list[str]) -> list[tuple[str, list[str]]]:
    """(name, global.enabledModules) of the two renders: the example values' list with the optional modules
    added, and without them."""
    listed = chart_render.module_values(all_on=True)["global"]["enabledModules"]  # what render.values defaults to
    return [("on", listed + [m for m in modules if m not in listed]),
            ("off", [m for m in listed if m not in modules])]


def compare(unpacked: Path, tree: Path, digests: dict[str, str], base: str) -> None:
    """Fail unless the unpacked module `unpacked` renders exactly what the source tree `tree` renders.

    Both are rendered with `render.values(digests, base, enabled_modules)`, the optional modules (the ones the
    templates of either test in global.enabledModules) all on, then all off. The tree renders as its chart directory
    is, but with the unpacked Chart.yaml's version: the release stamps its version there, and that is the one
    difference the image is meant to have. Raises SourceError with one line:

        render parity, optional modules <on|off> (<module>, ...): <Kind>/[<namespace>/]<name>: <difference>

    where <difference> is `rendered from the tree, not from the module`, `rendered from the module, not from the
    tree` or `differs from the tree's at <field path>` (the first differing object in the tree's render order, then
    the module's)."""
    version = _chart_version(unpacked)
    modules = optional_modules(tree, unpacked)
    for name, enabled in variants(modules):
        values = render.values(digests, base, enabled)
        where = f"render parity, optional modules {name} ({', '.join(modules) or 'none'})"
        try:
            ours = render.chart(tree, values, version=version)
            theirs = render.chart(unpacked, values)
        except SourceError as exc:
            raise SourceError(f"{where}: {exc}") from None
        difference = first_difference(ours, theirs)
        if difference:
            raise SourceError(f"{where}: {difference}")


def _chart_version(unpacked: Path) -> str:
    try:
        chart = yaml.safe_load((unpacked / "Chart.yaml").read_text())
    except (OSError, yaml.YAMLError, RecursionError, UnicodeDecodeError):
        chart = None
    if not isinstance(chart, dict) or not isinstance(chart.get("version"), str | int | float):
        raise SourceError(f"render parity: {unpacked}/Chart.yaml has no version")
    return str(chart["version"])


def object_name(obj: Any) -> str:
    """Kind/namespace/name, or Kind/name for a cluster-scoped object."""
    if not isinstance(obj, dict):
        return f"a {type(obj).__name__} document"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    parts = [obj.get("kind"), meta.get("namespace"), meta.get("name")]
    return "/".join(str(p) for p in parts if p not in (None, ""))


def first_difference(tree: list[Any], module: list[Any]) -> str | None:
    """The first object that differs between the two renders, as `<object>: <how>`, or None."""
    def keyed(objects: list[Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for obj in objects:
            key, n = object_name(obj), 2
            while key in out:  # the same object twice: the second is its own entry
                key = f"{object_name(obj)} (#{n})"
                n += 1
            out[key] = obj
        return out

    ours, theirs = keyed(tree), keyed(module)
    for key in [*ours, *(k for k in theirs if k not in ours)]:
        if key not in theirs:
            return f"{key}: rendered from the tree, not from the module"
        if key not in ours:
            return f"{key}: rendered from the module, not from the tree"
        path = _first_path(ours[key], theirs[key], "")
        if path is not None:
            return f"{key}: differs from the tree's at {path or 'the top'}"
    return None


def _first_path(a: Any, b: Any, path: str) -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}".lstrip(".")
            found = _first_path(a[key], b[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_path(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return f"{path}[{min(len(a), len(b))}]".lstrip(".") if len(a) != len(b) else None
    return None if a == b and type(a) is type(b) else path.lstrip(".")

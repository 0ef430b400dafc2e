# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Run every rule over the module's files and its rendered objects; apply `.dmtlint.yaml`."""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Iterator

import yaml

from . import container_rules, docs_rules, images_rules, module_rules, openapi_rules, rbac_rules, templates_rules
from .findings import Exclusions, Finding, Rendered

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_REGISTRY = "registry.example.com/deckhouse"
# `.dmtlint.yaml` excludes these for the real DMT only: DMT's license rule accepts only Flant's header, while
# ours checks the project's own header everywhere (module_rules.license_header).
DMT_ONLY_EXCLUSIONS = {("module", "license")}

OBJECT_RULES = (*container_rules.RULES, *templates_rules.OBJECT_RULES, *rbac_rules.RULES)


def _module_identity(module_dir: pathlib.Path) -> tuple[str, str]:
    path = module_dir / "module.yaml"
    data = yaml.safe_load(path.read_text()) if path.exists() else {}
    name = (data or {}).get("name", module_dir.name)
    return name, (data or {}).get("namespace", f"d8-{name}")


def file_findings(module_dir: pathlib.Path) -> list[Finding]:
    name, _ = _module_identity(module_dir)
    out: list[Finding] = []
    for rule in (*module_rules.RULES, *openapi_rules.rules(name), *docs_rules.RULES, *templates_rules.FILE_RULES,
                 *images_rules.rules(name)):
        out += rule(module_dir)
    return out


def object_findings(objects: list[Rendered], module_dir: pathlib.Path,
                    registry: str | tuple[str, ...] = DEFAULT_REGISTRY, complete: bool = True) -> list[Finding]:
    name, namespace = _module_identity(module_dir)
    out: list[Finding] = []
    for rule in OBJECT_RULES + (templates_rules.COMPLETE_RENDER_RULES if complete else ()):
        out += rule(objects, module=name, namespace=namespace, registry=registry, module_dir=module_dir)
    return out


def lint(module_dir: pathlib.Path = ROOT, objects: list[Rendered] | None = None,
         registry: str | tuple[str, ...] = DEFAULT_REGISTRY, files: bool = True, complete: bool = True
         ) -> list[Finding]:
    """Findings not excluded by `.dmtlint.yaml`, sorted; `objects=None` checks the files only.

    `complete=False` marks a rendering with some components switched off (no "declared but unmounted" check)."""
    found = file_findings(module_dir) if files else []
    if objects is not None:
        found += object_findings(objects, module_dir, registry, complete)
    exclusions = Exclusions.load(module_dir)
    kept = [f for f in found if (f.linter, f.rule) in DMT_ONLY_EXCLUSIONS or not exclusions.excludes(f)]
    return sorted(set(kept), key=lambda f: (f.rule, f.path, f.kind, f.namespace, f.name, f.container, f.message))


def _rendered(values: dict) -> tuple[list[Rendered], tuple[str, ...]]:
    """Objects of one rendering with their template paths, and the registries helm_lib_module_image may use."""
    from chart import render

    files = render.render_files(values)
    objects = []
    for path in sorted(files):
        source = path.split("/", 1)[1] if "/" in path else path  # drop the chart name Helm puts first
        if not source.endswith((".yaml", ".yml")):
            continue
        for doc in yaml.safe_load_all(files[path]):
            if doc:
                objects.append(Rendered(doc, source))
    # helm_lib_module_image: the platform registry, or the module's own registry + its name when it has one
    registries = [values.get("global", {}).get("modulesImages", {}).get("registry", {}).get("base", DEFAULT_REGISTRY)]
    own = values.get(render.MODULE_KEY, {}).get("registry", {}).get("base")
    if own:
        registries.append(f"{own.strip('/')}/{_module_identity(ROOT)[0]}")
    return objects, tuple(registries)


def render_for_lint(values_overrides: dict | None = None) -> tuple[list[Rendered], tuple[str, ...]]:
    """The module rendered with every component on and the example values, with each object's template path."""
    from chart import render

    return _rendered(render.module_values(values_overrides, all_on=True))


def render_cases() -> Iterator[tuple[str, Callable[[], tuple[list[Rendered], tuple[str, ...]]]]]:
    """(name, render) for every configuration to lint: all components on, then each case of chart.matrix."""
    yield "all-on", render_for_lint
    try:
        from chart import matrix
    except ImportError:
        return
    for name in sorted(matrix.CASES):
        yield name, lambda name=name: _rendered(matrix.case(name))

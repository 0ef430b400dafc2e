# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DMT `openapi` linter rules over `openapi/` and `crds/`."""

from __future__ import annotations

import functools
import pathlib
from collections.abc import Iterator
from typing import Any

import yaml

from .files import rel, walk
from .findings import WARNING, Finding

LINTER = "openapi"


def _f(rule: str, message: str, path: str, key: str = "", level: str = "error") -> Finding:
    return Finding(LINTER, rule, message, path=path, key=key, level=level)


def schema_files(module_dir: pathlib.Path) -> list[pathlib.Path]:
    """openapi/*.yaml (conversions aside) and crds/**.yaml."""
    openapi = sorted((module_dir / "openapi").glob("*.yaml")) if (module_dir / "openapi").is_dir() else []
    crds = [p for p in walk(module_dir, "crds") if p.suffix in (".yaml", ".yml")]
    return openapi + crds


def _documents(path: pathlib.Path) -> list[Any]:
    """The file's YAML documents; parsed once per content (several rules read the same CRDs)."""
    stat = path.stat()
    return _parse(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=512)
def _parse(path: str, _mtime: int, _size: int) -> list[Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return [d for d in yaml.load_all(pathlib.Path(path).read_text(), Loader=loader) if d is not None]  # noqa: S506


def _walk(node: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """(absolute key, value) for every mapping entry, DMT style: `a.b[0].c`."""
    if isinstance(node, dict):
        for k, v in node.items():
            here = f"{key}.{k}" if key else str(k)
            yield here, v
            yield from _walk(v, here)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{key}[{i}]")


def bilingual(module_dir: pathlib.Path) -> list[Finding]:
    out = []
    for path in schema_files(module_dir):
        relpath = rel(module_dir, path)
        name = path.name
        if name.startswith("doc-ru-"):
            if not (path.parent / name.removeprefix("doc-ru-")).exists():
                out.append(_f("bilingual", f"{name} has no base file {name.removeprefix('doc-ru-')}", relpath))
        elif name != "values.yaml" and not name.endswith("_test.yaml") and \
                not (path.parent / f"doc-ru-{name}").exists():
            out.append(_f("bilingual", f"doc-ru-{name} (Russian descriptions) is missing", relpath))
    return out


def doc_ru_yaml(module_dir: pathlib.Path) -> list[Finding]:
    out = []
    for path in schema_files(module_dir):
        if not path.name.startswith("doc-ru-"):
            continue
        try:
            docs = _documents(path)
        except yaml.YAMLError as exc:
            out.append(_f("doc-ru-yaml", f"not valid YAML: {str(exc).splitlines()[0]}", rel(module_dir, path)))
            continue
        if not docs or not all(isinstance(d, dict) for d in docs):
            out.append(_f("doc-ru-yaml", "must be a YAML mapping", rel(module_dir, path)))
    return out


def _camel_case_problem(value: str) -> str | None:
    if not value:
        return None
    if value[0].isalpha() and not value[0].isupper():
        return f"enum value {value!r} must start with a capital letter"
    for i, ch in enumerate(value):
        if ch.isalnum() or (ch == "." and i > 0 and value[i - 1].isdigit()):
            continue
        return f"enum value {value!r} must be CamelCase"
    return None


def enum(module_dir: pathlib.Path) -> list[Finding]:
    out = []
    for path in schema_files(module_dir):
        if path.name.startswith("doc-ru-"):
            continue
        for doc in _documents(path):
            for key, value in _walk(doc):
                if not (key.endswith(".enum") or key == "enum") or not isinstance(value, list):
                    continue
                for item in value:
                    problem = isinstance(item, str) and _camel_case_problem(item)
                    if problem:
                        out.append(_f("enum", problem, rel(module_dir, path), key.removesuffix(".enum")))
    return out


def high_availability(module_dir: pathlib.Path) -> list[Finding]:
    out = []
    for path in sorted((module_dir / "openapi").glob("*.yaml")) if (module_dir / "openapi").is_dir() else []:
        for doc in _documents(path):
            for key, value in _walk(doc):
                if key.endswith("properties.highAvailability") and isinstance(value, dict) and "default" in value:
                    out.append(_f("high-availability", "highAvailability must have no default",
                                  rel(module_dir, path), key))
    return out


def deckhouse_crds(module_dir: pathlib.Path, module_name: str) -> list[Finding]:
    out = []
    for path in schema_files(module_dir):
        if not rel(module_dir, path).startswith("crds/") or path.name.startswith("doc-ru-"):
            continue
        for doc in _documents(path):
            if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
                continue
            if not str((doc.get("spec") or {}).get("group", "")).endswith("deckhouse.io"):
                continue
            relpath = rel(module_dir, path)
            if doc.get("apiVersion") != "apiextensions.k8s.io/v1":
                out.append(_f("deckhouse-crds", "CRD apiVersion must be apiextensions.k8s.io/v1", relpath))
            if ((doc.get("metadata") or {}).get("labels") or {}).get("module") != module_name:
                out.append(_f("deckhouse-crds", f"CRD needs the label module: {module_name}", relpath))
            for key, _ in _walk(doc.get("spec")):
                if key.endswith(".deprecated") and not key.endswith("properties.deprecated"):
                    out.append(_f("deckhouse-crds", "use x-doc-deprecated, not deprecated", relpath, f"spec.{key}"))
    return out


def deckhouse_validations(module_dir: pathlib.Path) -> list[Finding]:
    out = []
    for path in schema_files(module_dir):
        relpath = rel(module_dir, path)
        for doc in _documents(path):
            for key, value in _walk(doc):
                if key.endswith("x-deckhouse-validations"):
                    good = isinstance(value, list) and value and all(
                        isinstance(v, dict) and v.get("expression") and v.get("message") for v in value)
                    if not good:
                        out.append(_f("deckhouse-validations", "must be a non-empty list of {expression, message}",
                                      relpath, key, WARNING))
                if key.endswith("x-kubernetes-validations") and relpath.startswith("openapi/"):
                    out.append(_f("deckhouse-validations", "use x-deckhouse-validations in openapi/",
                                  relpath, key, WARNING))
    return out


def rules(module_name: str):
    return (bilingual, doc_ru_yaml, enum, high_availability,
            lambda d: deckhouse_crds(d, module_name), deckhouse_validations)

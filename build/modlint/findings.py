# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What a rule reports, what it looks at, and the `.dmtlint.yaml` exclusions (DMT's format)."""

from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    linter: str
    rule: str
    message: str
    kind: str = ""
    name: str = ""
    namespace: str = ""
    container: str = ""
    path: str = ""  # file relative to the module root
    key: str = ""  # openapi: absolute key path (DMT's enum exclusion key)
    level: str = ERROR

    def line(self) -> str:
        where = []
        if self.kind:
            obj = f"{self.namespace}/{self.name}" if self.namespace else self.name
            where.append(f"{self.kind} {obj}")
        if self.container:
            where.append(f"container {self.container}")
        if self.path:
            where.append(self.path)
        if self.key:
            where.append(self.key)
        return f"{self.level} [{self.rule}] {'; '.join(where) or '-'}: {self.message}"


@dataclass(frozen=True)
class Rendered:
    """One rendered object and the template file it came from (`templates/...`)."""

    obj: dict
    source: str = ""

    @property
    def kind(self) -> str:
        return self.obj.get("kind", "")

    @property
    def name(self) -> str:
        return self.obj.get("metadata", {}).get("name", "")

    @property
    def namespace(self) -> str:
        return self.obj.get("metadata", {}).get("namespace", "") or ""

    def finding(self, linter: str, rule: str, message: str, container: str = "", level: str = ERROR) -> Finding:
        return Finding(linter, rule, message, kind=self.kind, name=self.name, namespace=self.namespace,
                       container=container, path=self.source, level=level)


@dataclass
class Exclusions:
    """`linters-settings.<linter>.exclude-rules.<rule>` entries of `.dmtlint.yaml`."""

    rules: dict[tuple[str, str], Any] = field(default_factory=dict)
    # no-cyrillic keeps files/directories right under exclude-rules (DMT's layout for that linter)
    linter_paths: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def load(cls, module_dir: pathlib.Path) -> Exclusions:
        path = module_dir / ".dmtlint.yaml"
        if not path.exists():
            return cls()
        data = yaml.safe_load(path.read_text()) or {}
        out = cls()
        for linter, settings in (data.get("linters-settings") or {}).items():
            rules = (settings or {}).get("exclude-rules") or {}
            for rule, entries in rules.items():
                if rule in ("files", "directories"):
                    out.linter_paths.setdefault(linter, {})[rule] = entries or []
                else:
                    out.rules[(linter, rule)] = entries
        return out

    def excludes(self, finding: Finding) -> bool:
        entries = self.rules.get((finding.linter, finding.rule))
        if _path_listed(self.linter_paths.get(finding.linter), finding.path):
            return True
        if entries is None:
            return False
        if isinstance(entries, dict):
            return _path_listed(entries, finding.path)
        for entry in entries:
            if isinstance(entry, str) and finding.key and entry in (finding.key, _wildcard(finding.key)):
                return True
            if isinstance(entry, dict) and _object_matches(entry, finding):
                return True
        return False


def _path_listed(spec: dict | None, path: str) -> bool:
    if not spec or not path:
        return False
    path = path.lstrip("/")
    files = [f.lstrip("/") for f in spec.get("files", [])]
    dirs = [d.lstrip("/").rstrip("/") + "/" for d in spec.get("directories", [])]
    return path in files or any(path.startswith(d) for d in dirs)


def _object_matches(entry: dict, finding: Finding) -> bool:
    if not finding.kind:
        return False
    wanted = {"kind": finding.kind, "name": finding.name, "container": finding.container}
    return all(entry[k] == wanted[k] for k in ("kind", "name", "container") if k in entry)


def _wildcard(key: str) -> str:
    return re.sub(r"\[\d+\]", "[*]", key)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DMT `docs` and `no-cyrillic` linter rules."""

from __future__ import annotations

import pathlib
import re

import yaml

from .files import CYRILLIC, is_russian_file, rel, text, walk
from .findings import Finding

MAX_DOCS_BYTES = 15 * 1024 * 1024
TEXT_SUFFIXES = (".yaml", ".yml", ".json", ".go", ".py", ".sh", ".tpl", ".tf", ".hcl", ".md", ".txt", ".toml",
                 ".proto", ".cfg", ".ini", ".lua", "")


def _docs(module_dir: pathlib.Path) -> list[pathlib.Path]:
    folder = module_dir / "docs"
    return sorted(p for p in folder.glob("*.md")) if folder.is_dir() else []


def _is_ru_doc(name: str) -> bool:
    return name.endswith(".ru.md") or name.endswith("_RU.md")


def readme(module_dir: pathlib.Path) -> list[Finding]:
    path = module_dir / "docs" / "README.md"
    if not path.exists() or not path.read_text().strip():
        return [Finding("docs", "readme", "docs/README.md is missing or empty", path="docs/README.md")]
    return []


def bilingual(module_dir: pathlib.Path) -> list[Finding]:
    out = []
    for path in _docs(module_dir):
        if _is_ru_doc(path.name):
            base = re.sub(r"(\.ru|_RU)\.md$", ".md", path.name)
            if not (path.parent / base).exists():
                out.append(Finding("docs", "bilingual", f"no English {base} for this Russian page",
                                   path=rel(module_dir, path)))
        elif not any((path.parent / f"{path.stem}{s}").exists() for s in (".ru.md", "_RU.md")):
            out.append(Finding("docs", "bilingual", f"{path.stem}.ru.md is missing", path=rel(module_dir, path)))
    return out


def _front_matter(content: str) -> tuple[bool, object]:
    """(closed, parsed) of a leading `---` block; (True, None) when there is none."""
    if not content.startswith("---\n"):
        return True, None
    end = content.find("\n---", 4)
    if end < 0:
        return False, None
    try:
        return True, yaml.safe_load(content[4:end])
    except yaml.YAMLError:
        return True, "invalid"


def front_matter(module_dir: pathlib.Path) -> list[Finding]:
    out = []
    for path in _docs(module_dir):
        closed, data = _front_matter(path.read_text())
        relpath = rel(module_dir, path)
        if not closed:
            out.append(Finding("docs", "front-matter", "front matter is not closed", path=relpath))
        elif data is not None and not isinstance(data, dict):
            out.append(Finding("docs", "front-matter", "front matter must be a YAML mapping", path=relpath))
        elif isinstance(data, dict) and "lang" in data:
            out.append(Finding("docs", "no-lang-key", "no lang: key; the file name carries the language",
                               path=relpath))
    return out


def size(module_dir: pathlib.Path) -> list[Finding]:
    total = sum(p.stat().st_size for p in walk(module_dir, "docs") if "docs/internal/" not in p.as_posix())
    if total > MAX_DOCS_BYTES:
        return [Finding("docs", "size", f"docs/ holds {total} bytes, more than 15 MB", path="docs")]
    return []


def cyrillic(module_dir: pathlib.Path) -> list[Finding]:
    """No Russian outside doc-ru-*/*.ru.* files: English docs report `cyrillic-in-english`, the rest `files`."""
    out = []
    for path in walk(module_dir):
        relpath = rel(module_dir, path)
        if path.suffix not in TEXT_SUFFIXES or is_russian_file(relpath):
            continue
        content = text(path)
        if content is None:
            continue
        for number, line in enumerate(content.splitlines(), 1):
            if CYRILLIC.search(line):
                if relpath.startswith("docs/") and path.suffix == ".md":
                    out.append(Finding("docs", "cyrillic-in-english", f"line {number} has Cyrillic", path=relpath))
                else:
                    out.append(Finding("no-cyrillic", "files", f"line {number} has Cyrillic", path=relpath))
                break
    return out


RULES = (readme, bilingual, front_matter, size, cyrillic)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the validator reports: a violation names the object and field (`Kind/name.field.path`), a stable code and
a one-line message that never quotes a secret."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Violation:
    path: str
    code: str
    message: str


def at(kind: str, name: str, field_path: Sequence[str | int] | str = "") -> str:
    """`Kind/name` plus the field as `.a.b[0]`, the way every violation path is written."""
    parts = [field_path] if isinstance(field_path, str) else list(field_path)
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts if p != "")
    return f"{kind}/{name}{text}" if name else f"{kind}{text}"


@dataclass
class Report:
    errors: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)

    def error(self, path: str, code: str, message: str) -> None:
        self.errors.append(Violation(path, code, " ".join(message.split())))

    def warn(self, path: str, code: str, message: str) -> None:
        self.warnings.append(Violation(path, code, " ".join(message.split())))

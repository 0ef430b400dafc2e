# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Readable progress lines and the final tables: the only module of the demo that prints."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Progress:
    """Prints `[  1.2s] step: message` lines and remembers each step's wall time."""

    out: object = sys.stdout
    started: float = field(default_factory=time.monotonic)
    step_times: dict[str, float] = field(default_factory=dict)

    def line(self, message: str) -> None:
        print(f"[{time.monotonic() - self.started:6.1f}s] {message}", file=self.out, flush=True)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        self.line(f"== {name}")
        began = time.monotonic()
        try:
            yield
        finally:
            self.step_times[name] = time.monotonic() - began
        self.line(f"   {name}: done in {self.step_times[name]:.1f}s")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain left-aligned text table."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)

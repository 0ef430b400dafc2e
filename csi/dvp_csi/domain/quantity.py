# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Kubernetes Quantity strings <-> bytes (only what disk sizes use)."""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

_SUFFIX = {
    "": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}
_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([a-zA-Z]*)$")


def parse(value: str | int | None) -> int | None:
    """Bytes of a Quantity (rounded up), None for an empty or malformed value."""
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    m = _RE.match(str(value).strip())
    if not m or m.group(2) not in _SUFFIX:
        return None
    try:
        return math.ceil(Decimal(m.group(1)) * _SUFFIX[m.group(2)])
    except InvalidOperation:
        return None


def format_bytes(n: int) -> str:
    """Exact binary Quantity: the largest binary suffix that divides n."""
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        if n and n % _SUFFIX[suffix] == 0:
            return f"{n // _SUFFIX[suffix]}{suffix}"
    return str(n)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Kubernetes resource quantities for byte sizes: parse to int bytes, format as the API would show them."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_SUFFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
           "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_RE = re.compile(r"^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([kMGTPE]i?|Ki|)$")


def parse(value: str | int | None) -> int:
    """Bytes in a quantity ("10Gi", "1G", "1073741824", 5); rounds fractions up. ValueError when malformed."""
    if value is None:
        raise ValueError("no quantity")
    if isinstance(value, int):
        return value
    match = _RE.match(str(value).strip())
    if not match:
        raise ValueError(f"not a byte quantity: {value!r}")
    try:
        number = Decimal(match.group(1)) * _SUFFIX[match.group(2)]
    except (InvalidOperation, KeyError):
        raise ValueError(f"not a byte quantity: {value!r}") from None
    return int(number.to_integral_value(rounding="ROUND_CEILING"))


def fmt(size: int) -> str:
    """The shortest exact binary form: 10737418240 -> "10Gi", 1536 -> "1536" stays exact."""
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        unit = _SUFFIX[suffix]
        if size and size % unit == 0:
            return f"{size // unit}{suffix}"
    return str(size)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Kubernetes resource quantities ("100m", "64Mi", "1.5G") as numbers, for comparisons only."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

SUFFIXES = {
    "": 1, "m": Decimal("0.001"), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$")


def parse_quantity(value: object) -> Decimal:
    """The quantity's value; ValueError on anything Kubernetes would not accept."""
    found = _QUANTITY.match(str(value).strip())
    if not found or found[2] not in SUFFIXES:
        raise ValueError(f"not a quantity: {value!r}")
    try:
        return Decimal(found[1]) * SUFFIXES[found[2]]
    except InvalidOperation as exc:
        raise ValueError(f"not a quantity: {value!r}") from exc

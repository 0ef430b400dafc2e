# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Byte sizes as the simulated DVP reads and prints them: dvp_common.quantity, refusing what is no size."""

from __future__ import annotations

from dvp_common.quantity import format_bytes, parse_quantity_or_none

fmt = format_bytes


def parse(value: str | int | None) -> int:
    """Bytes in a quantity ("10Gi", "1G", "1073741824", 5), rounded up; ValueError when malformed or negative."""
    found = parse_quantity_or_none(value)
    if found is None or found.amount < 0:
        raise ValueError(f"not a byte quantity: {value!r}")
    return found.to_int()

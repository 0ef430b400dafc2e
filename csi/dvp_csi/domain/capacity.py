# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CSI capacity-range rules mapped onto a disk size."""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from .errors import CsiError, invalid

MIB = 1 << 20
GIB = 1 << 30


@dataclass(frozen=True)
class Range:
    required: int = 0
    limit: int = 0


def _round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


def choose_size(rng: Range, default: int = GIB, unit: int = MIB) -> int:
    """Size to provision: required rounded up to unit, the default when nothing is required; never above limit."""
    if rng.required < 0 or rng.limit < 0:
        raise invalid("capacity_range: required_bytes and limit_bytes must not be negative")
    if rng.limit and rng.required > rng.limit:
        raise CsiError(grpc.StatusCode.OUT_OF_RANGE,
                       f"capacity_range: required_bytes {rng.required} exceeds limit_bytes {rng.limit}")
    size = _round_up(rng.required, unit) if rng.required else min(default, rng.limit or default)
    if rng.limit and size > rng.limit:
        # rounding up crossed the limit; the exact request still fits
        size = rng.required or rng.limit
    return size


def fits(capacity: int, rng: Range) -> bool:
    return capacity >= rng.required and (not rng.limit or capacity <= rng.limit)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Kubernetes quantities, parsed exactly (Fraction), so that 1Gi == 1024Mi when comparing specs."""

from __future__ import annotations

import re
from fractions import Fraction

_RE = re.compile(r"^\+?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[kMGTPE]|m)?$")
_SUFFIX = {
    None: Fraction(1), "m": Fraction(1, 1000),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}


class QuantityError(ValueError):
    pass


def parse(value: str | int) -> Fraction:
    if isinstance(value, bool):
        raise QuantityError(f"{value!r} is not a quantity")
    if isinstance(value, int):
        return Fraction(value)
    m = _RE.match(str(value).strip())
    if not m:
        raise QuantityError(f"{value!r} is not a quantity")
    return Fraction(m.group(1)) * _SUFFIX[m.group(2)]

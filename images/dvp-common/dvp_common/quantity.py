# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Kubernetes resource quantities, exactly as apimachinery's `resource.Quantity` reads and prints them.

The one parser of quantities in the tree: hooks, components and the simulator compare and print sizes with it, so
"1Gi" equals "1024Mi" everywhere and ".5Gi" is 512Mi everywhere.

Syntax: `<sign?><number><suffix?>`, number `12`, `1.5`, `.5` or `1.`; suffix a binary one (`Ki` ... `Ei`), a
decimal one (`n u m k M G T P E`) or an exponent (`e3`, `E-3`). As apimachinery does, a value finer than 1n
is rounded up (away from zero) to 1n, a binary-suffixed value above 2**63-1 is capped there, and the canonical form
is apimachinery's (`1.5` -> `1500m`, `1.5Gi` -> `1536Mi`, `1000` -> `1k`, `1e3` -> `1e3`).

Where this differs from `resource.ParseQuantity`, it is stricter, on purpose:
- a number needs a digit: ParseQuantity reads "", "+", ".", "Gi" and "e3" as zero; the API's OpenAPI pattern for
  quantities refuses them and so do we;
- exponents beyond +-1000 are refused: Go truncates them to 32 bits (wrapping), and no amount we handle is near.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Format", "Quantity", "QuantityError", "format_bytes", "parse_quantity", "parse_quantity_or_none",
           "quantity_bytes"]


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity."""


class Format(enum.StrEnum):
    BINARY_SI = "BinarySI"  # 12Mi
    DECIMAL_SI = "DecimalSI"  # 12M, 12m, 12
    DECIMAL_EXPONENT = "DecimalExponent"  # 12e6


_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_BY_POWER = {power // 10: suffix for suffix, power in _BINARY.items()}
_DECIMAL_BY_EXPONENT = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
# apimachinery's scanner: a signed number, then suffix letters, an optional sign and digits; `interpret` below
# decides whether that suffix means anything.
_SYNTAX = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)")
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)")
_MAX_EXPONENT = 1000
_NANO = Fraction(1, 10**9)
_MAX_INT64 = 2**63 - 1


@functools.total_ordering
@dataclass(frozen=True, slots=True, eq=False)
class Quantity:
    """An exact amount and the format its canonical text uses; equal and ordered by amount ("1Gi" == "1024Mi")."""

    amount: Fraction
    format: Format = Format.DECIMAL_SI

    def __eq__(self, other: object) -> bool:
        return self.amount == other.amount if isinstance(other, Quantity) else NotImplemented

    def __lt__(self, other: Quantity) -> bool:
        return self.amount < other.amount if isinstance(other, Quantity) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.amount)

    def __str__(self) -> str:
        return self.canonical()

    def to_int(self) -> int:
        """The amount rounded up away from zero, as `Quantity.Value()` does ("1.5" -> 2, "-1.5" -> -2)."""
        n = math.ceil(abs(self.amount))
        return n if self.amount >= 0 else -n

    def canonical(self) -> str:
        """The canonical text (`CanonicalizeBytes`). The API server answers with it, except for a text its parser
        already calls canonical, which it keeps as written ("+5", "05", "1E3"): compare amounts, never texts."""
        amount, fmt = self.amount, self.format
        if amount == 0:
            return "0"
        if fmt is Format.BINARY_SI and (-1024 < amount < 1024 or amount.denominator != 1):
            fmt = Format.DECIMAL_SI  # small or fractional binary amounts print exactly in decimal
        if fmt is Format.BINARY_SI:
            mantissa, power = int(amount), 0
            while mantissa % 1024 == 0 and power < 6:
                mantissa, power = mantissa // 1024, power + 1
            return f"{mantissa}{_BINARY_BY_POWER.get(power, '')}"
        # every amount is a multiple of 1n (see _round_nano), so this is an integer
        mantissa, exponent = int(amount / _NANO), -9
        while mantissa % 10 == 0:
            mantissa, exponent = mantissa // 10, exponent + 1
        while exponent % 3:
            mantissa, exponent = mantissa * 10, exponent - 1
        if fmt is Format.DECIMAL_EXPONENT:
            return f"{mantissa}e{exponent}" if exponent else str(mantissa)
        if exponent > 18:  # past "E" there is no suffix; apimachinery would drop the exponent, we keep the value
            mantissa, exponent = mantissa * 10 ** (exponent - 18), 18
        return f"{mantissa}{_DECIMAL_BY_EXPONENT[exponent]}"


def parse_quantity(value: str | int | float) -> Quantity:
    """The quantity in `value`, a string or a JSON number (an int-or-string field); QuantityError otherwise.

    Surrounding whitespace is ignored, as the JSON decoder of `resource.Quantity` does.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise QuantityError(f"{value!r} is not a quantity")
    if isinstance(value, float) and not math.isfinite(value):
        raise QuantityError(f"{value!r} is not a quantity")
    text = value.strip() if isinstance(value, str) else repr(value)
    found = _SYNTAX.fullmatch(text)
    if not found or not (found[2] or found[3]):
        raise QuantityError(f"{value!r} is not a quantity")
    sign, whole, fraction, suffix = found[1], found[2], found[3] or "", found[4]
    number = Fraction(int(whole or "0") * 10 ** len(fraction) + int(fraction or "0"), 10 ** len(fraction))
    if sign == "-":
        number = -number
    if suffix in _DECIMAL:
        fmt, amount = Format.DECIMAL_SI, number * Fraction(10) ** _DECIMAL[suffix]
    elif suffix in _BINARY:
        fmt, amount = Format.BINARY_SI, number * 2 ** _BINARY[suffix]
    elif exp := _EXPONENT.fullmatch(suffix):
        exponent = int(exp[1])
        if abs(exponent) > _MAX_EXPONENT:
            raise QuantityError(f"{value!r} is not a quantity: the exponent is out of range")
        fmt, amount = Format.DECIMAL_EXPONENT, number * Fraction(10) ** exponent
    else:
        raise QuantityError(f"{value!r} is not a quantity: unknown suffix {suffix!r}")
    amount = _round_nano(amount)
    if fmt is Format.BINARY_SI:
        amount = max(min(amount, Fraction(_MAX_INT64)), Fraction(-_MAX_INT64))
        if 0 < abs(amount) < 1:
            fmt = Format.DECIMAL_SI
    return Quantity(amount, fmt)


def parse_quantity_or_none(value: object) -> Quantity | None:
    """parse_quantity, or None for an absent, empty or malformed value (a field we read but do not own)."""
    try:
        return parse_quantity(value)  # type: ignore[arg-type]
    except QuantityError:
        return None


def quantity_bytes(value: str | int | float) -> int:
    """A size in bytes: the quantity rounded up ("1.5" -> 2); QuantityError if malformed."""
    return parse_quantity(value).to_int()


def format_bytes(size: int) -> str:
    """The canonical binary quantity of a byte count (10737418240 -> "10Gi", 1536 -> "1536", 0 -> "0")."""
    return Quantity(Fraction(size), Format.BINARY_SI).canonical()


def _round_nano(amount: Fraction) -> Fraction:
    """Round away from zero to a multiple of 1n: asking for a tiny amount still gets some."""
    if (amount / _NANO).denominator == 1:
        return amount
    nanos = math.ceil(abs(amount) / _NANO)
    return nanos * _NANO if amount > 0 else -nanos * _NANO

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_common.quantity: apimachinery's examples, properties, and the real API server's own canonical forms."""

from __future__ import annotations

from fractions import Fraction

import pytest
from dvp_common.kube.resources import Resource
from dvp_common.quantity import Format, Quantity, QuantityError, format_bytes, parse_quantity, quantity_bytes
from hypothesis import given
from hypothesis import strategies as st

GI = 2**30
# text, exact amount, canonical text (what kube-apiserver stores)
EXAMPLES = [
    ("0", 0, "0"),
    ("-0", 0, "0"),
    ("0Gi", 0, "0"),
    ("1", 1, "1"),
    ("05", 5, "5"),
    ("+5", 5, "5"),
    ("1000", 1000, "1k"),
    ("1500", 1500, "1500"),
    ("1.", 1, "1"),
    ("1.5", Fraction(3, 2), "1500m"),
    ("100m", Fraction(1, 10), "100m"),
    ("0.1", Fraction(1, 10), "100m"),
    ("1n", Fraction(1, 10**9), "1n"),
    ("1u", Fraction(1, 10**6), "1u"),
    ("0.0000000001", Fraction(1, 10**9), "1n"),  # finer than 1n rounds up to 1n
    ("1k", 1000, "1k"),
    ("1M", 10**6, "1M"),
    ("1G", 10**9, "1G"),
    ("1.5G", 15 * 10**8, "1500M"),
    ("1E", 10**18, "1E"),
    ("1Ki", 1024, "1Ki"),
    ("1Gi", GI, "1Gi"),
    ("1024Mi", GI, "1Gi"),
    ("2048Ki", 2 * 2**20, "2Mi"),
    ("1025Ki", 1025 * 1024, "1025Ki"),
    (".5Gi", GI // 2, "512Mi"),
    ("0.5Gi", GI // 2, "512Mi"),
    ("1.5Gi", 3 * GI // 2, "1536Mi"),
    ("1.5Ki", 1536, "1536"),
    ("0.5Ki", 512, "512"),
    ("0.1Ki", Fraction(512, 5), "102400m"),
    ("8Ei", 2**63 - 1, "9223372036854775807"),  # binary amounts are capped at the int64 maximum
    ("1e3", 1000, "1e3"),
    ("1E3", 1000, "1e3"),
    ("1e+3", 1000, "1e3"),
    ("1.5e3", 1500, "1500"),
    ("1e-3", Fraction(1, 1000), "1e-3"),
    ("1.5e-3", Fraction(3, 2000), "1500e-6"),
    ("1e0", 1, "1"),
    ("  2Gi ", 2 * GI, "2Gi"),  # the JSON decoder trims
    (5, 5, "5"),
    (1.5, Fraction(3, 2), "1500m"),
    ("-1Gi", -GI, "-1Gi"),
    ("-1.5", Fraction(-3, 2), "-1500m"),
]
MALFORMED = ["", " ", "1.2.3Gi", "..5", "Gi", ".", "+", "-", "e3", "1K", "1ki", "1Gb", "1GiB", "1e", "1e+",
             "1e1.5", "1Mi3", "1 Gi", "--1", "+-1", "0x10", "1_000", "lots", "1e1001", "١", None, True, [], 1e999]


@pytest.mark.parametrize(("text", "amount", "canonical"), EXAMPLES)
def test_apimachinery_examples(text, amount, canonical):
    q = parse_quantity(text)
    assert (q.amount, q.canonical(), str(q)) == (Fraction(amount), canonical, canonical)
    assert parse_quantity(canonical) == q


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_is_refused(text):
    with pytest.raises(QuantityError, match="is not a quantity"):
        parse_quantity(text)


def test_formats_and_rounding():
    assert [parse_quantity(t).format for t in ("1Gi", "1G", "1e9", "0.5Ki", "1")] == [
        Format.BINARY_SI, Format.DECIMAL_SI, Format.DECIMAL_EXPONENT, Format.BINARY_SI, Format.DECIMAL_SI]
    assert parse_quantity("0.0001Ki").format is Format.DECIMAL_SI  # below one: printed in decimal, as upstream
    assert [quantity_bytes(t) for t in ("1.5", "-1.5", "100m", "10Gi", 7)] == [2, -2, 1, 10 * GI, 7]
    assert parse_quantity("1Gi") == parse_quantity("1024Mi") == Quantity(Fraction(GI))
    assert parse_quantity("1G") < parse_quantity("1Gi") and len({parse_quantity("1Gi"), parse_quantity("1024Mi")}) == 1


def test_format_bytes():
    assert [format_bytes(n) for n in (0, 512, 1024, 1536, 10 * GI, 1000 * 1024, 3 * GI // 2)] == [
        "0", "512", "1Ki", "1536", "10Gi", "1000Ki", "1536Mi"]


_SUFFIXES = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


@given(st.integers(0, 10**6), st.sampled_from(sorted(_SUFFIXES)), st.sampled_from(["", "+", "-"]))
def test_integer_with_suffix(n, suffix, sign):
    q = parse_quantity(f"{sign}{n}{suffix}")
    expected = min(n * _SUFFIXES[suffix], 2**63 - 1) if suffix.endswith("i") else n * _SUFFIXES[suffix]
    assert q.amount == (-expected if sign == "-" else expected)


@given(st.integers(0, 10**5), st.text("0123456789", min_size=1, max_size=9),
       st.sampled_from(["Ki", "Mi", "Gi", "Ti", "k", "M", "G", ""]))
def test_fractions_are_exact(whole, digits, suffix):
    amount = (whole + Fraction(int(digits), 10 ** len(digits))) * _SUFFIXES[suffix]
    assert parse_quantity(f"{whole}.{digits}{suffix}").amount == amount
    if whole == 0:
        assert parse_quantity(f".{digits}{suffix}").amount == amount


@given(st.integers(-10**12, 10**12), st.integers(-12, 20))
def test_exponent_equals_decimal_shift(mantissa, exponent):
    exact = mantissa * Fraction(10) ** exponent
    nanos = abs(exact) * 10**9
    rounded = -(-nanos.numerator // nanos.denominator)  # up, away from zero
    amount = parse_quantity(f"{mantissa}e{exponent}").amount
    assert amount == (rounded if exact >= 0 else -rounded) / Fraction(10**9)
    assert parse_quantity(f"{mantissa}E{exponent}").amount == amount


_TEXT = st.builds(lambda sign, whole, frac, suffix: f"{sign}{whole}{frac}{suffix}",
                  st.sampled_from(["", "+", "-"]), st.integers(0, 10**15).map(str),
                  st.one_of(st.just(""), st.text("0123456789", max_size=12).map(lambda d: "." + d)),
                  st.sampled_from([*sorted(_SUFFIXES), "m", "n", "u", "e3", "E-2", "e-12", "e21"]))


@given(_TEXT)
def test_canonical_round_trips(text):
    q = parse_quantity(text)
    again = parse_quantity(q.canonical())
    assert again == q and again.canonical() == q.canonical()
    assert parse_quantity("-" + text.lstrip("+-")).amount == -parse_quantity(text.lstrip("+-")).amount


@given(st.integers(-2**63 + 1, 2**63 - 1))
def test_int_input_is_its_json_text(n):
    assert parse_quantity(n) == parse_quantity(str(n)) and parse_quantity(n).amount == n
    assert quantity_bytes(format_bytes(abs(n))) == abs(n)


@given(st.text("0123456789.", min_size=1, max_size=12).filter(lambda t: t.count(".") > 1),
       st.sampled_from(["", "Gi", "m", "e3"]))
def test_two_points_are_refused(number, suffix):
    with pytest.raises(QuantityError):
        parse_quantity(number + suffix)


RESOURCE_QUOTA = Resource("", "v1", "resourcequotas", "ResourceQuota")
# Where a core/v1 ResourceList does not hold the canonical text:
KEPT_AS_WRITTEN = {"05", "+5", "1.", "1E3", "1e+3", "1e0"}  # String() reuses a text its parser calls canonical
ROUNDED_TO_MILLI = {"1n": "1m", "1u": "1m", "0.0000000001": "1m", "1.5e-3": "2e-3"}  # core/v1 defaulting rounds up


def test_canonical_form_is_the_api_servers(dvp_api):
    """kube-apiserver answers with a quota's quantities in canonical form: ours prints the same text."""
    ns = dvp_api.create_namespace("quantity")
    client = dvp_api.client()
    try:
        for i, (text, _, canonical) in enumerate(e for e in EXAMPLES if parse_quantity(e[0]).amount >= 0):
            body = {"metadata": {"name": f"q{i}"}, "spec": {"hard": {"requests.storage": text}}}
            stored = client.create(RESOURCE_QUOTA, body, ns)["spec"]["hard"]["requests.storage"]
            expected = text if text in KEPT_AS_WRITTEN else ROUNDED_TO_MILLI.get(text, canonical)
            assert (text, stored) == (text, expected)
            assert parse_quantity(stored).canonical() == parse_quantity(expected).canonical()
    finally:
        client.close()

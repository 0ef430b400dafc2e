# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""bench.measure: the sizes of the growth curves come from CPDVP_BENCH_SIZES; a bad value is refused by name."""

from __future__ import annotations

import pathlib
import sys

import pytest

ROOT = str(pathlib.Path(__file__).resolve().parents[2])
sys.path.insert(0, ROOT)  # bench/ is not a package root of the venv
try:
    from bench.measure import SIZES_ENV, growth, sizes
finally:
    sys.path.remove(ROOT)


def test_sizes_default_and_from_the_environment(monkeypatch):
    monkeypatch.delenv(SIZES_ENV, raising=False)
    assert sizes() == (10, 100)
    monkeypatch.setenv(SIZES_ENV, "10,100,1000")
    assert sizes() == (10, 100, 1000)


@pytest.mark.parametrize("raw", ["10,x", "0,10", "10,,100"])
def test_a_bad_size_list_names_the_variable(monkeypatch, raw):
    monkeypatch.setenv(SIZES_ENV, raw)
    with pytest.raises(ValueError, match=f"{SIZES_ENV}={raw!r}: expected comma-separated positive integers"):
        sizes()


def test_growth_is_the_largest_n_over_the_smallest():
    assert growth({10: 4, 100: 4, 1000: 4}) == 1.0
    assert growth({10: 2, 1000: 5}) == 2.5
    assert growth({10: 0, 100: 0}) == 1.0

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Benchmarks: `make bench` (python -m bench) prints one JSON line per figure.

Contract for a benchmark module `bench/<area>.py`: a function `figures()` returning (or yielding) dicts
`{"figure": str, "value": number, "unit": str, "goal": str | number | None}`. `bench/measure.py` has the
timing helpers. Targets live here as printed goals, never as timed tests.
"""

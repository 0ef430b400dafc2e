# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Values validation cost: what a settings check costs the tests (build/chart/openapi.py)."""

from __future__ import annotations

from bench.measure import figure, median_ms


def figures():
    from chart import openapi

    examples = openapi.config_examples()
    largest = max(examples, key=lambda e: len(str(e)))
    yield figure("openapi: load and extend the schemas", median_ms(lambda: openapi.load_schemas(), runs=20), "ms")
    yield figure("openapi: validate the largest x-example as values (defaults applied)",
                 median_ms(lambda: openapi.validate("values", largest), runs=50), "ms")

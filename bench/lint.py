# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""modlint cost (`make lint`): the file rules over the tree, the object rules over the full rendering."""

from __future__ import annotations

from bench.measure import figure, median_ms


def figures():
    from modlint import lint, render_for_lint

    yield figure("modlint: file rules over the module tree", median_ms(lambda: lint(), runs=5), "ms")
    objects, registries = render_for_lint()
    yield figure(f"modlint: object rules over the full rendering ({len(objects)} objects)",
                 median_ms(lambda: lint(objects=objects, registry=registries, files=False), runs=20), "ms")

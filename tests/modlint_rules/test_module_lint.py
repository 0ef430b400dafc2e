# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module itself passes modlint (our DMT rules): its files, and its rendering with every component on."""

from harness.modlint import ERROR, lint, render_for_lint


def test_module_files_have_no_lint_errors():
    assert [f.line() for f in lint() if f.level == ERROR] == []


def test_rendered_module_has_no_lint_errors():
    objects, registries = render_for_lint()
    assert len(objects) > 20  # every component on
    assert [f.line() for f in lint(objects=objects, registry=registries, files=False) if f.level == ERROR] == []

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module itself passes modlint (our DMT rules): its files, and its rendering with every component on."""

import pytest
from modlint import ERROR, lint, render_cases, render_for_lint


def test_module_files_have_no_lint_errors():
    assert [f.line() for f in lint() if f.level == ERROR] == []


def test_rendered_module_has_no_lint_errors():
    objects, registries = render_for_lint()
    assert len(objects) > 20  # every component on
    assert [f.line() for f in lint(objects=objects, registry=registries, files=False) if f.level == ERROR] == []


@pytest.mark.parametrize("name", [name for name, _ in render_cases()][1:])
def test_every_values_matrix_configuration_has_no_lint_errors(name):
    objects, registries = dict(render_cases())[name]()
    found = lint(objects=objects, registry=registries, files=False, complete=False)
    assert [f.line() for f in found if f.level == ERROR] == []

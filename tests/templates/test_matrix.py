# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every case of the values matrix renders, every object passes strict schema validation, and the helm v3 CLI
renders exactly what the in-process engine renders."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from chart import matrix
from chart.render import parse_files, render_files, render_files_cli

from testkit.harness.validate import kube_versions, validate_objects

CASES = sorted(matrix.CASES)


@pytest.mark.parametrize("name", CASES)
def test_case_renders_and_every_object_validates(name, rendered, upstream_crds):
    objects = rendered(name)
    assert validate_objects(objects) == []
    # Every case ships the always-on parts.
    kinds = Counter(o["kind"] for o in objects)
    assert kinds["Namespace"] == 1
    assert {"cloud-data-discoverer", "validation-webhook"} <= {
        o["metadata"]["name"] for o in objects if o["kind"] == "Deployment"}


def test_validation_covers_1_30_and_the_newest_schema():
    versions = kube_versions()
    assert versions[0] == "1.30"
    assert tuple(int(x) for x in versions[1].split(".")) >= (1, 37)


def _canonical(files: dict[str, str]) -> dict[str, list[str]]:
    out = {}
    for path, text in files.items():
        docs = sorted(json.dumps(o, sort_keys=True) for o in parse_files({path: text}))
        if docs:
            out[path] = docs
    return out


@pytest.mark.tools
@pytest.mark.parametrize("name", CASES)
def test_helm_cli_renders_identically(name):
    values = matrix.case(name)
    engine = _canonical(render_files(values))
    cli = _canonical(render_files_cli(values))
    assert sorted(cli) == sorted(engine)
    for path in engine:
        assert cli[path] == engine[path], path

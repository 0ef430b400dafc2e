# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""docs/CONFIGURATION(.ru).md agree with openapi/config-values.yaml: every setting documented, every example valid."""

import re

import pytest
import yaml
from chart import openapi

DOCS = ["docs/CONFIGURATION.md", "docs/CONFIGURATION.ru.md"]


def _leaf_settings(schema: dict, prefix: str = "") -> set[str]:
    out = set()
    for name, sub in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        out |= _leaf_settings(sub, path + ".") if sub.get("properties") else {path}
    return out


def _table_settings(text: str) -> set[str]:
    return set(re.findall(r"^\| `([A-Za-z.]+)` \|", text, flags=re.M))


def _examples(text: str) -> list[dict]:
    out = []
    for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.S):
        doc = yaml.safe_load(block)
        if doc.get("kind") == "ModuleConfig":
            out.append(doc["spec"]["settings"])
        elif "settings" in doc:
            out.append(doc["settings"])
    return out


@pytest.mark.parametrize("page", DOCS)
def test_every_setting_is_in_the_table(page):
    text = (openapi.ROOT / page).read_text()
    assert _table_settings(text) == _leaf_settings(openapi.schemas().config)


@pytest.mark.parametrize("page", DOCS)
def test_every_example_is_valid(page):
    examples = _examples((openapi.ROOT / page).read_text())
    assert len(examples) == 2
    for settings in examples:
        openapi.validate("config", settings)

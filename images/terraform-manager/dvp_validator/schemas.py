# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The module's schemas the rules check against, read from the tree or, in the frozen validator, from the copies
it carries (sys._MEIPASS). Missing files fail the start, never a request."""

from __future__ import annotations

import sys
from pathlib import Path

import jsonschema
import yaml
from dvp_common import schema_subset

from .domain.rules import Schemas

CONFIG_VALUES = "openapi/config-values.yaml"
INSTANCE_CLASS = "candi/openapi/instance_class.yaml"
CLUSTER_CONFIGURATION = "candi/openapi/cluster_configuration.yaml"
FILES = (CONFIG_VALUES, INSTANCE_CLASS, CLUSTER_CONFIGURATION)


def root() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    return Path(frozen) if frozen else Path(__file__).resolve().parents[3]


def _read(relpath: str) -> dict:
    return yaml.safe_load((root() / relpath).read_text(encoding="utf-8"))


def load() -> Schemas:
    config = _read(CONFIG_VALUES)
    # OpenAPI keywords of our own (x-*) are not JSON Schema; the rest is the Draft 7 subset Deckhouse uses.
    return Schemas(
        config_values=jsonschema.Draft7Validator({k: v for k, v in config.items() if not k.startswith("x-")}),
        instance_class=schema_subset.select(_read(INSTANCE_CLASS), INSTANCE_CLASS),
        cluster_configuration=schema_subset.select(_read(CLUSTER_CONFIGURATION), CLUSTER_CONFIGURATION),
    )

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The hooks' side of the schema subset (dvp_common.schema_subset, which dhctl's validator applies too): the
module's schema files read from its tree, and a violation as the hook's one InvalidInput line.

YAML is imported only when a schema is loaded (first use, then cached): steady-state runs skip validation."""

import functools
import os

from lib import MODULE_ROOT, dvp
from lib.errors import InvalidInput


def subset():
    """dvp_common.schema_subset (pure; RE2 only once a pattern is evaluated)."""
    dvp.importable()
    from dvp_common import schema_subset

    return schema_subset


@functools.cache
def load(relpath: str, api_version: str | None = None) -> dict:
    """The schema in a module file: a candi-style document (apiVersions[].openAPISpec) or a plain schema."""
    import yaml

    path = os.path.join(MODULE_ROOT, relpath)
    if not os.path.exists(path):
        raise FileNotFoundError(f"schema {relpath} is missing from the module")
    with open(path, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - safe loader
    return subset().select(doc, relpath, api_version)


def validate(doc, schema: dict, obj: str, field: str) -> None:
    found = subset().first_error(doc, schema, ())
    if found:
        path, reason = found
        raise InvalidInput(obj, field + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path), reason)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVPCloudDiscoveryData: parsing, defaults and the merge of its sources (pure functions)."""

from lib.snapshots import b64text, parse_json, require_mapping

SCHEMA = "candi/openapi/cloud_discovery_data.yaml"
API_VERSION = "deckhouse.io/v1"
KIND = "DVPCloudDiscoveryData"


def defaults() -> dict:
    # DVP has no zones of its own: one "default" zone keeps NodeGroups and the registration consistent.
    return {"apiVersion": API_VERSION, "kind": KIND, "zones": ["default"]}


def parse(value_b64: str, obj: str, field: str) -> dict:
    """One source document, normalised (older IsDefault spelling), without defaults, so the merge can tell
    what the source really said."""
    doc = require_mapping(parse_json(b64text(value_b64, obj, field), obj, field), obj, field)
    classes = doc.get("storageClasses")
    for sc in classes if isinstance(classes, list) else ():  # another type is the schema's to refuse
        if isinstance(sc, dict) and "IsDefault" in sc:
            sc.setdefault("isDefault", sc.pop("IsDefault"))
    return {k: x for k, x in doc.items() if x is not None}


def validate(doc: dict, obj: str, field: str) -> None:
    """A source document is valid once the defaults fill what it leaves out."""
    from lib import schema  # only when the merged result changed: steady-state runs skip the validator

    full = defaults() | doc
    version = full["apiVersion"] if isinstance(full["apiVersion"], str) else None
    schema.validate(full, schema.load(SCHEMA, version), obj, field)


def contributions(docs: list[dict]) -> list[dict]:
    """What each source (in precedence order) gives the merge: its fields that no earlier source has.

    Only these are validated: a field an earlier source shadows never reaches the values, and judging it would
    make the outcome depend on whether the merged result was already in values (warm) or not (after a restart)."""
    seen: set = set()
    out = []
    for doc in docs:
        out.append({k: x for k, x in doc.items() if k not in seen})
        seen |= doc.keys()
    return out


def merge(docs: list[dict]) -> dict:
    """Sources in precedence order; a field comes from the first source that has it, else from the defaults.

    Defaults are applied last so a lower source's real zones beat a higher source's defaulted ones."""
    out: dict = {}
    for doc in docs:
        for key, value in doc.items():
            out.setdefault(key, value)
    for key, value in defaults().items():
        out.setdefault(key, value)
    return out

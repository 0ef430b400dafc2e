# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Our CustomResourceDefinitions (crds/*.yaml, the doc-ru- twins excluded) and which of them need applying.

Each applied CRD carries a checksum annotation of its file, so a CRD already at the shipped version is left
alone: the hook writes only when a file changed or the cluster lost the object."""

import glob
import hashlib
import json
import os

from lib.schema import MODULE_ROOT

CHECKSUM_ANNOTATION = "cloud-provider-dvp.deckhouse.io/crd-checksum"


def load(directory: str = os.path.join(MODULE_ROOT, "crds")) -> list[dict]:
    import yaml

    docs = []
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        if os.path.basename(path).startswith("doc-"):
            continue
        with open(path, encoding="utf-8") as f:
            docs.extend(d for d in yaml.load_all(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if d)  # noqa: S506
    return docs


def checksum(crd: dict) -> str:
    return hashlib.sha256(json.dumps(crd, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def stamped(crd: dict) -> dict:
    out = json.loads(json.dumps(crd))
    out["metadata"].setdefault("annotations", {})[CHECKSUM_ANNOTATION] = checksum(crd)
    return out


def to_apply(shipped: list[dict], in_cluster: list[dict]) -> list[dict]:
    """in_cluster: [{name, checksum}] as the binding's filter gives them."""
    have = {c["name"]: c.get("checksum") for c in in_cluster}
    return [stamped(c) for c in shipped if have.get(c["metadata"]["name"]) != checksum(c)]

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Our CustomResourceDefinitions (crds/*.yaml, the doc-ru- twins excluded) and which of them need applying.

Each applied CRD carries a checksum annotation of its file's bytes, so a CRD already at the shipped version is
left alone: the hook parses and writes a CRD only when its file changed or the cluster lost the object."""

import os
from typing import NamedTuple  # not a dataclass: generating its methods costs every hook run at import

from lib import MODULE_ROOT, digest

CHECKSUM_ANNOTATION = "cloud-provider-dvp.deckhouse.io/crd-checksum"
DIRECTORY = os.path.join(MODULE_ROOT, "crds")


class Shipped(NamedTuple):
    path: str
    name: str
    checksum: str

    def manifest(self) -> dict:
        import yaml

        with open(self.path, encoding="utf-8") as f:
            crd = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - safe loader
        crd["metadata"].setdefault("annotations", {})[CHECKSUM_ANNOTATION] = self.checksum
        return crd


def shipped(directory: str = DIRECTORY) -> list[Shipped]:
    out = []
    for entry in sorted(os.listdir(directory)):
        if not entry.endswith(".yaml") or entry.startswith("doc-"):
            continue
        path = os.path.join(directory, entry)
        with open(path, "rb") as f:
            raw = f.read()
        out.append(Shipped(path, _name(raw.decode("utf-8"), path), digest.hexdigest(raw)[:16]))
    return out


def _name(text: str, path: str) -> str:
    """metadata.name of a CRD file: the first `  name:` line of its top-level `metadata:` block (plain string
    operations: compiling a regex costs every run at import)."""
    lines = ("\n" + text).split("\nmetadata:\n", 1)
    for line in lines[1].split("\n") if len(lines) == 2 else ():
        if not line.startswith("  "):
            break
        if line.startswith("  name: ") and line[8:].strip():
            return line[8:].strip()
    raise ValueError(f"{path}: no metadata.name")


def to_apply(crds: list[Shipped], in_cluster: list[dict]) -> list[Shipped]:
    """in_cluster: [{name, checksum}] as the binding's filter gives them."""
    have = {c.get("name"): c.get("checksum") for c in in_cluster if isinstance(c.get("name"), str)}
    return [c for c in crds if have.get(c.name) != c.checksum]

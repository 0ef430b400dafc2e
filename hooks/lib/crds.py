# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Our CustomResourceDefinitions (crds/*.yaml, the doc-ru- twins excluded) and which of them need applying.

Each applied CRD carries a checksum annotation of its file's bytes, so a CRD already at the shipped version is
left alone: the hook parses and writes a CRD only when its file changed or the cluster lost the object."""

import glob
import os
import re
from typing import NamedTuple  # not a dataclass: generating its methods costs every hook run at import

from lib import digest
from lib.schema import MODULE_ROOT

CHECKSUM_ANNOTATION = "cloud-provider-dvp.deckhouse.io/crd-checksum"
DIRECTORY = os.path.join(MODULE_ROOT, "crds")
_NAME = re.compile(r"^metadata:\n(?:  .*\n)*?  name: (\S+)$", re.M)


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
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        if os.path.basename(path).startswith("doc-"):
            continue
        with open(path, "rb") as f:
            raw = f.read()
        found = _NAME.search(raw.decode("utf-8"))
        if not found:
            raise ValueError(f"{path}: no metadata.name")
        out.append(Shipped(path, found.group(1), digest.hexdigest(raw)[:16]))
    return out


def to_apply(crds: list[Shipped], in_cluster: list[dict]) -> list[Shipped]:
    """in_cluster: [{name, checksum}] as the binding's filter gives them."""
    have = {c.get("name"): c.get("checksum") for c in in_cluster if isinstance(c.get("name"), str)}
    return [c for c in crds if have.get(c.name) != c.checksum]

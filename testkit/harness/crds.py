# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Load CustomResourceDefinitions from YAML files and wait until each is Established and served."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from .processes import HarnessError

ESTABLISH_TIMEOUT = 30.0  # seconds per CRD; establishing takes milliseconds on a healthy server


def read(files: Iterable[Path]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in files:
        try:
            docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
        except yaml.YAMLError as exc:
            raise HarnessError(f"{path}: not valid YAML: {exc}") from None
        for doc in docs:
            if doc.get("kind") != "CustomResourceDefinition":
                raise HarnessError(f"{path}: expected CustomResourceDefinition documents, found {doc.get('kind')!r}")
            out.append(doc)
    return out


def _established(obj: dict[str, Any] | None) -> bool:
    conds = ((obj or {}).get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conds)


def load(client, files: Iterable[Path]) -> list[str]:
    """Create (or keep) every CRD in `files`, then wait for each to be Established. Returns their names."""
    from dvp_common.kube import ApiError, Resource
    from dvp_common.kube.resources import CRD

    docs = read(files)
    for doc in docs:
        try:
            client.create(CRD, doc, get_existing=True)
        except ApiError as exc:
            raise HarnessError(f"CustomResourceDefinition {doc['metadata']['name']}: rejected: {exc}") from None
    names = []
    for doc in docs:
        name = doc["metadata"]["name"]
        client.wait_for(CRD, name, _established, ESTABLISH_TIMEOUT)
        names.append(name)
    # Established means the REST handler is installed: one LIST per kind proves it is served before tests run.
    for doc in docs:
        spec = doc["spec"]
        version = next(v["name"] for v in spec["versions"] if v.get("storage"))
        res = Resource(spec["group"], version, spec["names"]["plural"], spec["names"]["kind"],
                       spec["scope"] == "Namespaced")
        client.list(res, limit=1)
    return names

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVP RBAC blocks of docs/SECURITY.md (`<!-- dvp-rbac[:component] -->` then a YAML block), read as the
tests of this folder check them."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from dvp_common.kube import Resource

DOC = Path(__file__).resolve().parents[2] / "docs" / "SECURITY.md"
RBAC = "rbac.authorization.k8s.io"
KINDS = {"Role": Resource(RBAC, "v1", "roles", "Role"),
         "ClusterRole": Resource(RBAC, "v1", "clusterroles", "ClusterRole", namespaced=False),
         "RoleBinding": Resource(RBAC, "v1", "rolebindings", "RoleBinding"),
         "ClusterRoleBinding": Resource(RBAC, "v1", "clusterrolebindings", "ClusterRoleBinding", namespaced=False)}


def doc_block(marker: str = "dvp-rbac") -> str:
    block = re.search(rf"<!-- {re.escape(marker)} -->\s*```yaml\n(.*?)```", DOC.read_text(), re.S)
    assert block, f"{DOC}: the RBAC block (<!-- {marker} --> then ```yaml) is missing"
    return block.group(1)


def documented_rules(marker: str = "dvp-rbac") -> set[tuple[str, str]]:
    """(verb, plural[.group][/subresource]) pairs allowed by a YAML block of docs/SECURITY.md."""
    block = doc_block(marker)
    allowed = set()
    for doc in yaml.safe_load_all(block):
        if doc["kind"] not in ("Role", "ClusterRole"):
            continue
        for rule in doc["rules"]:
            assert "*" not in rule["verbs"] and "*" not in rule["resources"], f"wildcard in {doc['kind']}"
            for group in rule["apiGroups"]:
                for res in rule["resources"]:
                    base, _, sub = res.partition("/")
                    name = base + (f".{group}" if group else "") + (f"/{sub}" if sub else "")
                    allowed |= {(verb, name) for verb in rule["verbs"]}
    return allowed


def apply_block(admin, marker: str, namespace: str, account: str, kinds: tuple[str, ...] = tuple(KINDS)) -> None:
    """Create the block's objects of `kinds` for project `namespace` and ServiceAccount `account` (admin client)."""
    text = re.sub(r"<[a-z]+ service account>", account, doc_block(marker).replace("<dvp project>", namespace))
    for doc in yaml.safe_load_all(text):
        if doc["kind"] in kinds:
            res = KINDS[doc["kind"]]
            admin.create(res, doc, namespace if res.namespaced else None, get_existing=True)

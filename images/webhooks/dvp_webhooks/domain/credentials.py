# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The credentials Secret, judged by the one credentials rule (dvp_common.credentials: authScheme kubeconfig, a
non-empty `secret` holding a base64 kubeconfig that passes the one kubeconfig rule, no `identity`); its type never
changes. Secrets of other types pass untouched."""

from __future__ import annotations

from typing import Any

from dvp_common import credentials
from dvp_common.admission.review import Request
from dvp_common.admission.verdict import Verdict, classify

# Who may write a credentials Secret the rule refuses (only while the legacy configuration migrates): the
# identity the API server puts in userInfo, which no object label can fake.
MODULE_IDENTITIES = frozenset({"system:serviceaccount:d8-system:deckhouse"})


def problems(req: Request, secret: dict[str, Any]) -> list[str]:
    """The rule's problems, each prefixed with the object. Types were checked before (shapes)."""
    found = credentials.judge(secret.get("type"), secret.get("data"), secret.get("stringData"))
    return [f"{req.ref()}: {problem}" for problem in found.problems]


def validate(req: Request) -> Verdict:
    new_type = (req.obj or {}).get("type")
    old_type = (req.old or {}).get("type")
    if credentials.TYPE not in (new_type, old_type):
        return Verdict.allow()
    if req.operation == "DELETE":
        return Verdict.allow(f"{req.ref()}: deleting the DVP credentials; the provider loses access to DVP until "
                             "they are created again")
    if req.operation == "UPDATE" and new_type != old_type:
        return Verdict.deny(f"{req.ref()}: type is immutable ({old_type!r} -> {new_type!r})")
    old = problems(req, req.old) if req.old is not None else []
    return classify(req, problems(req, req.obj or {}), old)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The credentials Secret (Deckhouse's cloud-provider contract): type cloud-provider.deckhouse.io/credentials,
authScheme kubeconfig, a non-empty `secret` holding a base64 kubeconfig that passes the one kubeconfig rule
(dvp_common.kubeconfig), no `identity`; its type never changes. Secrets of other types pass untouched."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from dvp_common import kubeconfig
from dvp_common.admission.review import Request
from dvp_common.admission.verdict import Verdict, classify

TYPE = "cloud-provider.deckhouse.io/credentials"
AUTH_SCHEME = "kubeconfig"
# Who may write a credentials Secret the rule refuses (only while the legacy configuration migrates): the
# identity the API server puts in userInfo, which no object label can fake.
MODULE_IDENTITIES = frozenset({"system:serviceaccount:d8-system:deckhouse"})
UNDECODABLE = object()


def _field(secret: dict[str, Any], key: str) -> str | object | None:
    """A key from stringData (as written) or data (as the API server hands it to us), decoded; UNDECODABLE
    when data holds no base64 of UTF-8 text. Types were checked before (shapes)."""
    string_data = secret.get("stringData") or {}
    if key in string_data:
        return string_data[key]
    data = secret.get("data") or {}
    if key not in data:
        return None
    try:
        return base64.b64decode(data[key], validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return UNDECODABLE


def problems(req: Request, secret: dict[str, Any]) -> list[str]:
    """Every message names the field and never holds a value: any of them may be the kubeconfig (a Secret with
    authScheme and secret swapped)."""
    ref = req.ref()
    out = []
    scheme = _field(secret, "authScheme")
    if scheme is None:
        out.append(f"{ref}: authScheme is required (must be {AUTH_SCHEME!r})")
    elif scheme != AUTH_SCHEME:
        out.append(f"{ref}: authScheme must be {AUTH_SCHEME!r}")
    if _field(secret, "identity") is not None:
        out.append(f"{ref}: identity is not allowed with authScheme {AUTH_SCHEME!r}")
    value = _field(secret, "secret")
    if value is UNDECODABLE:
        out.append(f"{ref}: secret is not valid base64 in data")
    elif not value or not str(value).strip():
        out.append(f"{ref}: secret is required (the DVP kubeconfig, base64)")
    else:
        try:
            kubeconfig.parse_base64(str(value))
        except kubeconfig.KubeconfigInvalid as exc:
            out.append(f"{ref}: secret: {exc}")
    return out


def validate(req: Request) -> Verdict:
    new_type = (req.obj or {}).get("type")
    old_type = (req.old or {}).get("type")
    if TYPE not in (new_type, old_type):
        return Verdict.allow()
    if req.operation == "DELETE":
        return Verdict.allow(f"{req.ref()}: deleting the DVP credentials; the provider loses access to DVP until "
                             "they are created again")
    if req.operation == "UPDATE" and new_type != old_type:
        return Verdict.deny(f"{req.ref()}: type is immutable ({old_type!r} -> {new_type!r})")
    old = problems(req, req.old) if req.old is not None else []
    return classify(req, problems(req, req.obj or {}), old)

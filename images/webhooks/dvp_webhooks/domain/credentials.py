# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The credentials Secret (anchor-module §1.4): type cloud-provider.deckhouse.io/credentials, authScheme
kubeconfig, a non-empty `secret` holding a base64 kubeconfig with token or client-certificate auth, no `identity`;
its type never changes. Secrets of other types pass untouched."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from dvp_common.kube import ConfigError
from dvp_common.kube.config import from_kubeconfig

from .review import Request
from .verdict import Verdict, classify

TYPE = "cloud-provider.deckhouse.io/credentials"
AUTH_SCHEME = "kubeconfig"


def _field(secret: dict[str, Any], key: str) -> str | None:
    """A key from stringData (as written) or data (as the API server hands it to us), decoded."""
    string_data = secret.get("stringData") or {}
    if key in string_data:
        return str(string_data[key])
    data = secret.get("data") or {}
    if key not in data:
        return None
    try:
        return base64.b64decode(str(data[key]), validate=True).decode()
    except (binascii.Error, ValueError):
        return "\0undecodable"


def problems(req: Request, secret: dict[str, Any]) -> list[str]:
    ref = req.ref()
    out = []
    scheme = _field(secret, "authScheme")
    if scheme != AUTH_SCHEME:
        out.append(f"{ref}: authScheme must be {AUTH_SCHEME!r}, got {scheme!r}" if scheme is not None
                   else f"{ref}: authScheme is required (must be {AUTH_SCHEME!r})")
    if _field(secret, "identity") is not None:
        out.append(f"{ref}: identity is not allowed with authScheme {AUTH_SCHEME!r}")
    kubeconfig = _field(secret, "secret")
    if not kubeconfig or not kubeconfig.strip():
        out.append(f"{ref}: secret is required (the DVP kubeconfig, base64)")
    else:
        try:
            raw = base64.b64decode("".join(kubeconfig.split()), validate=True).decode()
            from_kubeconfig(raw)
        except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
            detail = str(exc) if isinstance(exc, ConfigError) else "not base64 of a kubeconfig"
            out.append(f"{ref}: secret is not a valid kubeconfig: {detail}")
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

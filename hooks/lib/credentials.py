# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The credentials contract (Secret d8-cloud-provider-dvp/d8-credentials) as pure functions.

A credential is a base64 kubeconfig of a ServiceAccount, judged by the one kubeconfig rule (inline token or client
certificate only: the components run without exec plugins, auth providers or the files a human kubeconfig names).
The value keeps that one encoding on its way: `secret` in the Secret, in values and in the components' Secret."""

import os
import sys
from typing import NamedTuple  # not a dataclass: generating its methods costs every hook run at import

from lib.errors import InvalidInput
from lib.snapshots import b64text

SECRET_TYPE = "cloud-provider.deckhouse.io/credentials"  # noqa: S105 - a Secret type
SECRET_NAME = "d8-credentials"  # noqa: S105 - a Secret name
AUTH_SCHEME = "kubeconfig"
# not pathlib: its import (urllib.parse, ipaddress) costs a steady-state run more than the rest of the hook
DVP_COMMON = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))),
                          "images", "dvp-common")


class Credential(NamedTuple):
    name: str
    auth_scheme: str
    secret: str  # base64 kubeconfig, exactly as stored

    def as_value(self) -> dict:
        return {"authScheme": self.auth_scheme, "secret": self.secret}


def from_secret(item: dict, namespace: str, known: frozenset[str] = frozenset()) -> Credential:
    """item is the binding's filterResult: {name, type, data: {authScheme?, secret?, identity?}} (base64 data).

    known: kubeconfigs already checked (those in values, which only this check writes): not parsed again."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise InvalidInput(f"Secret {namespace}/?", "metadata.name", "must be a string")
    name = item["name"]
    obj = f"Secret {namespace}/{name}"
    data = item.get("data") or {}
    if not isinstance(data, dict):
        raise InvalidInput(obj, "data", "must be a mapping")
    if item.get("type") != SECRET_TYPE:
        raise InvalidInput(obj, "type", f"must be {SECRET_TYPE}")
    scheme = b64text(data["authScheme"], obj, "data.authScheme") if "authScheme" in data else ""
    if scheme != AUTH_SCHEME:
        raise InvalidInput(obj, "data.authScheme", f"must be {AUTH_SCHEME}")
    if data.get("identity"):
        raise InvalidInput(obj, "data.identity", f"is not allowed with authScheme {AUTH_SCHEME}")
    outer = b64text(data.get("secret") or "", obj, "data.secret")
    if not outer.strip():
        raise InvalidInput(obj, "data.secret", "must not be empty")
    # data.secret holds the base64 kubeconfig (the Secret's data wraps it once more); kept exactly as given, so
    # the hook, the webhook and the components judge the same text.
    kubeconfig_b64 = outer
    if kubeconfig_b64 not in known:
        check_kubeconfig(kubeconfig_b64, obj, "data.secret")
    return Credential(name=name, auth_scheme=scheme, secret=kubeconfig_b64)


def check_kubeconfig(kubeconfig_b64: str, obj: str, field: str) -> None:
    """The one kubeconfig rule (dvp_common.kubeconfig), the same the webhook and the components apply."""
    rule = _kubeconfig_rule()
    try:
        rule.parse_base64(kubeconfig_b64)
    except rule.KubeconfigInvalid as exc:
        raise InvalidInput(obj, field, str(exc)) from None


def _kubeconfig_rule():
    """dvp_common.kubeconfig from the module's own tree (it imports only the standard library and PyYAML)."""
    if DVP_COMMON not in sys.path:
        sys.path.append(DVP_COMMON)
    from dvp_common import kubeconfig

    return kubeconfig

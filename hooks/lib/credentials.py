# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The credentials hook's side of the one credentials rule (dvp_common.credentials, which the validation webhook
and dhctl's validator apply too): a Secret's first problem becomes the hook's one InvalidInput line.

A credential is a base64 kubeconfig of a ServiceAccount, judged by the one kubeconfig rule (inline token or client
certificate only: the components run without exec plugins, auth providers or the files a human kubeconfig names).
The value keeps that one encoding on its way: `secret` in the Secret, in values and in the components' Secret."""

from typing import NamedTuple  # not a dataclass: generating its methods costs every hook run at import

from lib import dvp
from lib.errors import InvalidInput


class Credential(NamedTuple):
    name: str
    auth_scheme: str
    secret: str  # base64 kubeconfig, exactly as stored

    def as_value(self) -> dict:
        return {"authScheme": self.auth_scheme, "secret": self.secret}


def rule():
    """dvp_common.credentials (the standard library only until a kubeconfig is judged)."""
    dvp.importable()
    from dvp_common import credentials

    return credentials


def from_secret(item: dict, namespace: str, known: frozenset[str] = frozenset()) -> Credential:
    """item is the binding's filterResult: {name, type, data: {authScheme?, secret?, identity?}} (base64 data).

    known: kubeconfigs already checked (those in values, which only this check writes): not parsed again."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise InvalidInput(f"Secret {namespace}/?", "metadata.name", "must be a string")
    found = rule().judge(item.get("type"), item.get("data") or {}, judged=known)
    if found.problems:
        field, reason = found.problems[0]
        raise InvalidInput(f"Secret {namespace}/{item['name']}", field, reason)
    return Credential(name=item["name"], auth_scheme=rule().AUTH_SCHEME, secret=found.kubeconfig)


def check_kubeconfig(kubeconfig_b64: str, obj: str, field: str) -> None:
    """The one kubeconfig rule for a legacy source standing in for the Secret."""
    reason = rule().kubeconfig_problem(kubeconfig_b64)
    if reason:
        raise InvalidInput(obj, field, reason)

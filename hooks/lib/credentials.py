# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The credentials contract (Secret d8-cloud-provider-dvp/d8-credentials) as pure functions.

A credential is a base64 kubeconfig of a ServiceAccount: static token or client certificate only, because the
components run without the exec plugins or auth providers a human kubeconfig relies on."""

from dataclasses import dataclass

from lib.errors import InvalidInput
from lib.snapshots import b64text, parse_yaml

SECRET_TYPE = "cloud-provider.deckhouse.io/credentials"  # noqa: S105 - a Secret type
SECRET_NAME = "d8-credentials"  # noqa: S105 - a Secret name
AUTH_SCHEME = "kubeconfig"


@dataclass(frozen=True)
class Credential:
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
    # data.secret holds the base64 kubeconfig, so the Secret's data carries it base64 twice.
    kubeconfig_b64 = outer.strip()
    if kubeconfig_b64 not in known:
        check_kubeconfig(kubeconfig_b64, obj, "data.secret")
    return Credential(name=name, auth_scheme=scheme, secret=kubeconfig_b64)


def check_kubeconfig(kubeconfig_b64: str, obj: str, field: str) -> None:
    doc = parse_yaml(b64text(kubeconfig_b64, obj, field), obj, field)
    if not isinstance(doc, dict):
        raise InvalidInput(obj, field, "is not a kubeconfig (expected a mapping)")
    for section in ("clusters", "contexts", "users"):
        if not isinstance(doc.get(section), list) or not doc[section]:
            raise InvalidInput(obj, field, f"is not a valid kubeconfig: {section} is empty")
    contexts = {c.get("name"): c.get("context") or {} for c in doc["contexts"] if isinstance(c, dict)}
    current = doc.get("current-context") or (next(iter(contexts)) if len(contexts) == 1 else None)
    if current not in contexts:
        raise InvalidInput(obj, field, "is not a valid kubeconfig: current-context names no context")
    clusters = {c.get("name"): c.get("cluster") or {} for c in doc["clusters"] if isinstance(c, dict)}
    users = {u.get("name"): u.get("user") or {} for u in doc["users"] if isinstance(u, dict)}
    ctx = contexts[current]
    if not clusters.get(ctx.get("cluster"), {}).get("server"):
        raise InvalidInput(obj, field, f"is not a valid kubeconfig: context {current} has no cluster server")
    if ctx.get("user") not in users:
        raise InvalidInput(obj, field, f"is not a valid kubeconfig: context {current} names no user")
    for uname, user in users.items():
        for plugin in ("exec", "auth-provider"):
            if plugin in user:
                raise InvalidInput(obj, field, f"user {uname} uses {plugin} authentication, which is not supported")
    user = users[ctx["user"]]
    if not (user.get("token") or user.get("client-certificate-data")):
        raise InvalidInput(obj, field, f"user {ctx['user']} needs a token or client-certificate-data")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The credentials Secret (d8-cloud-provider-dvp/d8-credentials, Deckhouse's cloud-provider contract): the one rule
the credentials hook, the validation webhook and dhctl's validator judge it by.

Type `cloud-provider.deckhouse.io/credentials`; `data.authScheme` is `kubeconfig`; `data.secret` is a non-empty
base64 kubeconfig that passes the one kubeconfig rule (dvp_common.kubeconfig), kept exactly as given; no
`data.identity`, not even an empty one (upstream's contract: identity is not allowed with this scheme). Data values
are Kubernetes' base64 of their text; `stringData` (text, as written) is folded in as the API server folds it, so
the fields are named as the API stores them (`data.<key>`).

Pure, and the standard library only until a kubeconfig is judged (then dvp_common.kubeconfig, with PyYAML): hooks
import it on every run. Each problem names its field and never carries a value: any of them may be the kubeconfig
(a Secret with authScheme and secret swapped)."""

from __future__ import annotations

import binascii
from collections.abc import Collection
from typing import Any, NamedTuple  # not a dataclass: generating its methods costs every hook run at import

TYPE = "cloud-provider.deckhouse.io/credentials"
NAME = "d8-credentials"
AUTH_SCHEME = "kubeconfig"
KEYS = ("authScheme", "secret", "identity")  # the data keys the contract names
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


class Problem(NamedTuple):
    field: str  # as the API stores the Secret: "type", "data.secret"
    reason: str

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}"


class Judgement(NamedTuple):
    problems: list[Problem]  # in a fixed order: type, data, authScheme, identity, secret
    kubeconfig: str | None  # data.secret's text, the base64 kubeconfig exactly as given; None on any problem


def judge(secret_type: Any, data: Any, string_data: Any = None, judged: Collection[str] = ()) -> Judgement:
    """Every problem of a credentials Secret with this type, data (base64 values) and stringData (text values).

    judged: kubeconfigs that already passed the kubeconfig rule (a hook's values hold only those): not parsed
    again."""
    problems = [] if secret_type == TYPE else [Problem("type", f"must be {TYPE}")]
    fields, shape = _fields(data, string_data)
    if shape:
        return Judgement([*problems, *shape], None)
    scheme = fields.get("authScheme")
    if isinstance(scheme, Problem):
        problems.append(scheme)
    elif scheme != AUTH_SCHEME:
        problems.append(Problem("data.authScheme", f"must be {AUTH_SCHEME}"))
    if "identity" in fields:
        problems.append(Problem("data.identity", f"is not allowed with authScheme {AUTH_SCHEME}"))
    kubeconfig = fields.get("secret")
    if isinstance(kubeconfig, Problem):
        problems.append(kubeconfig)
    elif not kubeconfig or not kubeconfig.strip():
        problems.append(Problem("data.secret", "must not be empty"))
    elif kubeconfig not in judged:
        reason = kubeconfig_problem(kubeconfig)
        if reason:
            problems.append(Problem("data.secret", reason))
    return Judgement(problems, None if problems else kubeconfig)


def kubeconfig_problem(kubeconfig_b64: str) -> str | None:
    """What the one kubeconfig rule says of a base64 kubeconfig (one line, never a value), None when it passes."""
    from . import kubeconfig

    try:
        kubeconfig.parse_base64(kubeconfig_b64)
    except kubeconfig.KubeconfigInvalid as exc:
        return str(exc)
    return None


def _fields(data: Any, string_data: Any) -> tuple[dict[str, str | Problem], list[Problem]]:
    """The contract's keys as text (a Problem where a value is not that), and the problems of the two maps."""
    shape = [Problem(name, "must be a mapping") for name, value in (("data", data), ("stringData", string_data))
             if value is not None and not isinstance(value, dict)]
    if shape:
        return {}, shape
    fields: dict[str, str | Problem] = {}
    for key in KEYS:
        if string_data and key in string_data:  # stringData wins, as the API server merges them
            value = string_data[key]
            fields[key] = value if isinstance(value, str) else Problem(f"stringData.{key}", "must be a string")
        elif data and key in data:
            fields[key] = _text(data[key], f"data.{key}")
    return fields, []


def _text(value: Any, field: str) -> str | Problem:
    """A data value decoded as the API server encodes it: strict base64 (the standard alphabet, padding required),
    of UTF-8 text."""
    if not isinstance(value, str):
        return Problem(field, "must be a base64 string")
    try:
        raw = value.encode("ascii")
        body = raw.rstrip(b"=")
        if len(raw) - len(body) > 2 or body.translate(None, _ALPHABET):
            raise ValueError
        return binascii.a2b_base64(raw, strict_mode=True).decode("utf-8")
    except ValueError:  # binascii.Error and the Unicode errors are ones too
        return Problem(field, "is not valid base64 of UTF-8 text")

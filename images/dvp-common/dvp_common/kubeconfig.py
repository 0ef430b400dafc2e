# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one kubeconfig rule: what a DVP kubeconfig may contain, judged the same way by the credentials hook, the
validation webhook and every component at start-up.

A kubeconfig travels in one encoding, base64 of its UTF-8 YAML text, from the credentials Secret's `secret` (or
the legacy `kubeconfigDataBase64`) through the values to the components' DVP_KUBERNETES_CONFIG_BASE64; Kubernetes'
own base64 of Secret data is unwrapped by the API server and the kubelet, never by us. `decode_base64` is the only
decoder and reads it as Go's base64.StdEncoding does (which OpenTofu's base64decode in candi's credentials module
uses): padding required, CR and LF ignored, anything else outside the alphabet refused. Nothing guesses an encoding.

Accepted: inline material only (`certificate-authority-data`, `client-certificate-data` with `client-key-data`,
`token`) and an https server. Refused anywhere in the document: file references (they would read the judge's
own files: a pod's ServiceAccount token, /dev/zero), `tokenFile`, `exec`, `auth-provider`, basic auth. Size,
nesting and YAML aliases are bounded before anything else is looked at. Errors are one line naming the field,
never its value. Only the standard library and PyYAML are imported: hooks pay for nothing else.
"""

from __future__ import annotations

import base64
import binascii
import re
import ssl
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import yaml

MAX_BYTES = 128 << 10  # a kubeconfig with a CA chain and a client pair is a few KiB
MAX_DEPTH = 12  # users[].user.exec.env[].value is 6 deep
MAX_INDENT = 64  # spaces; block nesting deeper than this is refused unparsed
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
FILE_FIELDS = {"clusters": ("certificate-authority",), "users": ("client-certificate", "client-key", "tokenFile")}
REFUSED_USER_FIELDS = {
    "exec": "exec plugins are not supported",
    "auth-provider": "auth providers are not supported",
    "username": "basic auth is not supported",
    "password": "basic auth is not supported",
}
HINT = "use an inline token or client-certificate-data with client-key-data"


class KubeconfigInvalid(ValueError):
    """One line naming the field that breaks the rule; never carries a value."""

    def __init__(self, field: str, reason: str) -> None:
        self.field, self.reason = field, reason
        super().__init__(f"kubeconfig: {field}: {reason}" if field else f"kubeconfig {reason}")


@dataclass(frozen=True)
class Kubeconfig:
    server: str
    namespace: str | None = None
    token: str | None = field(default=None, repr=False)
    ca_pem: bytes | None = field(default=None, repr=False)
    client_cert_pem: bytes | None = field(default=None, repr=False)
    client_key_pem: bytes | None = field(default=None, repr=False)
    insecure: bool = False


def decode_base64(value: str | bytes) -> str:
    """The kubeconfig's text from its base64 (CR and LF ignored, nothing else)."""
    raw = value.encode() if isinstance(value, str) else value
    if not isinstance(raw, bytes):
        raise KubeconfigInvalid("", "must be a base64 string")
    if len(raw) > MAX_BYTES * 4 // 3 + 4096:
        raise KubeconfigInvalid("", f"is larger than {MAX_BYTES} bytes")
    try:
        return base64.b64decode(raw.replace(b"\r", b"").replace(b"\n", b""), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        raise KubeconfigInvalid("", "is not base64 of UTF-8 text") from None


def parse_base64(value: str | bytes, context: str | None = None) -> Kubeconfig:
    return parse(decode_base64(value), context)


def parse(text: str | bytes, context: str | None = None) -> Kubeconfig:
    """Judge a kubeconfig's YAML text; the credentials of its current (or the given) context."""
    doc = _load(text)
    sections = {s: _entries(doc, s) for s in ("clusters", "contexts", "users")}
    for section, entries in sections.items():
        for where, body in entries.values():
            _refuse_forbidden(section, where, body)
    ctx_name = _context_name(doc, sections["contexts"], context)
    ctx_where, ctx = sections["contexts"][ctx_name]
    cluster_name = _str(ctx, "cluster", ctx_where, required=True)
    user_name = _str(ctx, "user", ctx_where, required=True)
    if cluster_name not in sections["clusters"]:
        raise KubeconfigInvalid(f"{ctx_where}.cluster", "names no entry of clusters")
    if user_name not in sections["users"]:
        raise KubeconfigInvalid(f"{ctx_where}.user", "names no entry of users")
    cluster_where, cluster = sections["clusters"][cluster_name]
    user_where, user = sections["users"][user_name]
    token = _str(user, "token", user_where)
    cert = _pem(user, "client-certificate-data", user_where, "CERTIFICATE")
    key = _pem(user, "client-key-data", user_where, "PRIVATE KEY")
    if bool(cert) != bool(key):
        missing = "client-key-data" if cert else "client-certificate-data"
        raise KubeconfigInvalid(f"{user_where}.{missing}", "is required with the other half of the client pair")
    if not token and not cert:
        raise KubeconfigInvalid(user_where, f"has no credentials; {HINT}")
    ca = _pem(cluster, "certificate-authority-data", cluster_where, "CERTIFICATE")
    if ca:
        _check_ca(ca, f"{cluster_where}.certificate-authority-data")
    insecure = cluster.get("insecure-skip-tls-verify", False)
    if not isinstance(insecure, bool):
        raise KubeconfigInvalid(f"{cluster_where}.insecure-skip-tls-verify", "must be a boolean")
    return Kubeconfig(server=_server(cluster, cluster_where), namespace=_str(ctx, "namespace", ctx_where),
                      token=token, ca_pem=ca, client_cert_pem=cert, client_key_pem=key, insecure=insecure)


class _Loader(yaml.SafeLoader):
    """SafeLoader without aliases (a kubeconfig needs none; with them a few bytes expand without bound)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise KubeconfigInvalid("", f"YAML aliases are not allowed (line {self.peek_event().start_mark.line + 1})")
        return super().compose_node(parent, index)


def _load(text: str | bytes) -> dict[str, Any]:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise KubeconfigInvalid("", "is not UTF-8 text") from None
    if not isinstance(text, str):
        raise KubeconfigInvalid("", "must be text")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise KubeconfigInvalid("", f"is larger than {MAX_BYTES} bytes")
    if not text.strip():
        raise KubeconfigInvalid("", "is empty")
    _prescan(text)
    try:
        doc = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader
    except RecursionError:
        raise KubeconfigInvalid("", f"is nested deeper than {MAX_DEPTH} levels") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise KubeconfigInvalid("", "is not valid YAML" + (f" (line {mark.line + 1})" if mark else "")) from None
    if not isinstance(doc, dict):
        raise KubeconfigInvalid("", "is not a mapping")
    _depth(doc, 0)
    return doc


def _prescan(text: str) -> None:
    """Nesting bounded before the (recursive) parser sees it: flow brackets by count, block nesting by indentation
    (one level takes at least one space)."""
    depth = deepest = 0
    for ch in _NOT_BRACKETS.sub("", text):
        depth += 1 if ch in "[{" else -1
        deepest = max(deepest, depth)
    indent = max((len(line) - len(line.lstrip(" ")) for line in text.splitlines()), default=0)
    if deepest > MAX_DEPTH or indent > MAX_INDENT:
        raise KubeconfigInvalid("", f"is nested deeper than {MAX_DEPTH} levels")


def _depth(node: Any, level: int) -> None:
    if level > MAX_DEPTH:
        raise KubeconfigInvalid("", f"is nested deeper than {MAX_DEPTH} levels")
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        _depth(child, level + 1)


def _entries(doc: dict[str, Any], section: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """name -> (field path of the entry's body, body) for clusters/contexts/users."""
    items = doc.get(section)
    if items is None:
        items = []
    if not isinstance(items, list):
        raise KubeconfigInvalid(section, "must be a list")
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    body_key = section[:-1]
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise KubeconfigInvalid(f"{section}[{i}]", "must be a mapping")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise KubeconfigInvalid(f"{section}[{i}].name", "must be a non-empty string")
        where = f'{section}[name="{_printable(name)}"]'
        if name in out:
            raise KubeconfigInvalid(where, "is given twice")
        body = item.get(body_key)
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise KubeconfigInvalid(f"{where}.{body_key}", "must be a mapping")
        out[name] = (f"{where}.{body_key}", body)
    return out


def _refuse_forbidden(section: str, where: str, body: dict[str, Any]) -> None:
    for key in FILE_FIELDS.get(section, ()):
        if key in body:
            inline = "token" if key == "tokenFile" else f"{key}-data"
            raise KubeconfigInvalid(f"{where}.{key}", f"file references are not allowed; inline it as {inline}")
    if section == "users":
        for key, reason in REFUSED_USER_FIELDS.items():
            if key in body:
                raise KubeconfigInvalid(f"{where}.{key}", f"{reason}; {HINT}")


def _context_name(doc: dict[str, Any], contexts: dict[str, Any], wanted: str | None) -> str:
    if wanted is None:
        wanted = doc.get("current-context")
        if wanted is not None and not isinstance(wanted, str):
            raise KubeconfigInvalid("current-context", "must be a string")
        if not wanted:
            if len(contexts) != 1:
                raise KubeconfigInvalid("current-context", "is not set and there is not exactly one context")
            return next(iter(contexts))
        if wanted not in contexts:
            raise KubeconfigInvalid("current-context", "names no entry of contexts")
        return wanted
    if wanted not in contexts:
        raise KubeconfigInvalid(f'contexts[name="{_printable(wanted)}"]', "not found")
    return wanted


def _str(body: dict[str, Any], key: str, where: str, required: bool = False) -> str | None:
    value = body.get(key)
    if value is None or value == "":
        if required:
            raise KubeconfigInvalid(f"{where}.{key}", "is required")
        return None
    if not isinstance(value, str):
        raise KubeconfigInvalid(f"{where}.{key}", "must be a string")
    return value


def _pem(body: dict[str, Any], key: str, where: str, label: str) -> bytes | None:
    value = _str(body, key, where)
    if value is None:
        return None
    try:
        pem = base64.b64decode("".join(value.split()), validate=True)
    except (binascii.Error, ValueError):
        raise KubeconfigInvalid(f"{where}.{key}", "is not base64") from None
    if b"-----BEGIN " not in pem or label.encode() not in pem:
        raise KubeconfigInvalid(f"{where}.{key}", f"is not base64 of a PEM {label}")
    return pem


def _check_ca(pem: bytes, where: str) -> None:
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cadata=pem.decode("ascii"))
    except (ssl.SSLError, ValueError, UnicodeDecodeError):
        raise KubeconfigInvalid(where, "is not a parsable PEM certificate") from None


def _server(cluster: dict[str, Any], where: str) -> str:
    server = _str(cluster, "server", where, required=True) or ""
    try:
        url = urlsplit(server)
        url.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise KubeconfigInvalid(f"{where}.server", "is not a URL") from None
    if url.scheme != "https" or not url.hostname:
        raise KubeconfigInvalid(f"{where}.server", "must be an https:// URL with a host")
    if url.username or url.password or url.query or url.fragment:
        raise KubeconfigInvalid(f"{where}.server", "must not carry user info, a query or a fragment")
    return server.rstrip("/")


def _printable(name: str) -> str:
    """A name as it may appear in a one-line error: short, no control characters."""
    clean = "".join(c if c.isprintable() and c != '"' else "?" for c in name)
    return clean if len(clean) <= 63 else clean[:60] + "..."

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Credentials from a kubeconfig (raw or base64), a ServiceAccount, or explicit values.

Errors name the kubeconfig field, never its value: tokens and keys must not reach logs.
"""

from __future__ import annotations

import base64
import binascii
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


def _pem(value: str | bytes | None) -> bytes | None:
    """PEM given as text, or base64 of it (kubeconfig *-data fields are base64)."""
    if value is None:
        return None
    raw = value.encode() if isinstance(value, str) else value
    if b"-----BEGIN" in raw:
        return raw
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError("certificate data is neither PEM nor base64 PEM") from None


@dataclass
class Credentials:
    host: str
    token: str | None = field(default=None, repr=False)
    token_file: str | None = None  # re-read periodically: projected tokens rotate
    ca_data: bytes | None = field(default=None, repr=False)
    client_cert_data: bytes | None = field(default=None, repr=False)
    client_key_data: bytes | None = field(default=None, repr=False)
    insecure: bool = False
    namespace: str | None = None  # the kubeconfig context's (or ServiceAccount's) namespace, if any
    _token_read_at: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self.host = self.host.rstrip("/")
        if not self.host.startswith(("https://", "http://")):
            raise ConfigError("server must be an http(s) URL")
        if bool(self.client_cert_data) != bool(self.client_key_data):
            raise ConfigError("client certificate and client key must be given together")

    def bearer_token(self, now: float | None = None) -> str | None:
        now = time.monotonic() if now is None else now
        if self.token_file and (self.token is None or now - self._token_read_at > 60):
            try:
                self.token = Path(self.token_file).read_text().strip()
            except OSError as exc:
                raise ConfigError(f"cannot read token file {self.token_file}: {exc.strerror}") from None
            self._token_read_at = now
        return self.token


def from_url(host: str, token: str | None = None, ca_data: str | bytes | None = None,
             client_cert: str | bytes | None = None, client_key: str | bytes | None = None,
             insecure: bool = False) -> Credentials:
    return Credentials(host=host, token=token, ca_data=_pem(ca_data), client_cert_data=_pem(client_cert),
                       client_key_data=_pem(client_key), insecure=insecure)


def from_service_account(directory: str | Path = SERVICE_ACCOUNT_DIR, env: dict[str, str] | None = None) -> Credentials:
    env = os.environ if env is None else env
    host, port = env.get("KUBERNETES_SERVICE_HOST"), env.get("KUBERNETES_SERVICE_PORT", "443")
    if not host:
        raise ConfigError("not in a pod: KUBERNETES_SERVICE_HOST is not set")
    directory = Path(directory)
    token_file = directory / "token"
    if not token_file.is_file():
        raise ConfigError(f"ServiceAccount token {token_file} is missing")
    host = f"[{host}]" if ":" in host else host
    ca = directory / "ca.crt"
    ns_file = directory / "namespace"
    return Credentials(
        host=f"https://{host}:{port}", token_file=str(token_file),
        ca_data=ca.read_bytes() if ca.is_file() else None,
        namespace=ns_file.read_text().strip() if ns_file.is_file() else None,
    )


def decode_kubeconfig(text_or_base64: str | bytes) -> dict[str, Any]:
    """Parse a kubeconfig given as YAML/JSON text or as base64 of it (we detect which)."""
    raw = text_or_base64.decode() if isinstance(text_or_base64, bytes) else text_or_base64
    import yaml  # only kubeconfig users pay for it

    raw = raw.strip()
    if not raw:
        raise ConfigError("kubeconfig is empty")
    if ":" not in raw:  # YAML always has a colon; base64 never does
        try:
            raw = base64.b64decode("".join(raw.split()), validate=True).decode()
        except (binascii.Error, ValueError):
            raise ConfigError("kubeconfig is neither YAML nor base64 of YAML") from None
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError:
        raise ConfigError("kubeconfig is not valid YAML") from None
    if not isinstance(data, dict):
        raise ConfigError("kubeconfig is not a mapping")
    return data


def _named(data: dict[str, Any], section: str, name: str) -> dict[str, Any]:
    for item in data.get(section) or []:
        if isinstance(item, dict) and item.get("name") == name:
            return item.get(section[:-1]) or {}
    raise ConfigError(f'kubeconfig: {section}[name="{name}"] not found')


def _file_or_data(entry: dict[str, Any], key: str, where: str, base_dir: Path | None) -> bytes | None:
    if entry.get(f"{key}-data"):
        try:
            return _pem(entry[f"{key}-data"])
        except ConfigError:
            raise ConfigError(f"kubeconfig: {where}.{key}-data is not base64 PEM") from None
    if entry.get(key):
        path = Path(entry[key])
        path = path if path.is_absolute() or base_dir is None else base_dir / path
        try:
            return path.read_bytes()
        except OSError as exc:
            raise ConfigError(f"kubeconfig: {where}.{key} {path}: {exc.strerror}") from None
    return None


def from_kubeconfig(text_or_base64: str | bytes, context: str | None = None,
                    base_dir: Path | None = None) -> Credentials:
    data = decode_kubeconfig(text_or_base64)
    ctx_name = context or data.get("current-context")
    if not ctx_name:
        contexts = data.get("contexts") or []
        if len(contexts) != 1:
            raise ConfigError("kubeconfig: current-context is not set and there is not exactly one context")
        ctx_name = contexts[0].get("name")
    ctx = _named(data, "contexts", ctx_name)
    cluster_name, user_name = ctx.get("cluster"), ctx.get("user")
    if not cluster_name:
        raise ConfigError(f'kubeconfig: contexts[name="{ctx_name}"].context.cluster is not set')
    cluster = _named(data, "clusters", cluster_name)
    where_c = f'clusters[name="{cluster_name}"].cluster'
    if not cluster.get("server"):
        raise ConfigError(f"kubeconfig: {where_c}.server is not set")
    user = _named(data, "users", user_name) if user_name else {}
    where_u = f'users[name="{user_name}"].user'
    for unsupported in ("exec", "auth-provider"):
        if user.get(unsupported):
            raise ConfigError(
                f"kubeconfig: {where_u}.{unsupported} is not supported; use a token or a client certificate")
    if user.get("username") or user.get("password"):
        raise ConfigError(f"kubeconfig: {where_u} basic auth is not supported; use a token or a client certificate")
    token_file = user.get("tokenFile")
    if token_file and base_dir is not None and not Path(token_file).is_absolute():
        token_file = str(base_dir / token_file)
    return Credentials(
        host=str(cluster["server"]),
        token=user.get("token") or None,
        token_file=None if user.get("token") else token_file,
        ca_data=_file_or_data(cluster, "certificate-authority", where_c, base_dir),
        client_cert_data=_file_or_data(user, "client-certificate", where_u, base_dir),
        client_key_data=_file_or_data(user, "client-key", where_u, base_dir),
        insecure=bool(cluster.get("insecure-skip-tls-verify")),
        namespace=ctx.get("namespace") or None,
    )


def from_file_or_service_account(kubeconfig_path: str | Path = "") -> Credentials:
    """A component's guest API: the kubeconfig file when one is given (local runs, the demo), else the pod's
    ServiceAccount. An unreadable file raises OSError, which entry points report as one line."""
    if kubeconfig_path:
        return from_kubeconfig(Path(kubeconfig_path).read_text(encoding="utf-8"))
    return from_service_account()

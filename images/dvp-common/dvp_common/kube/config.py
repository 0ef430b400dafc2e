# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Credentials from a kubeconfig (through the one kubeconfig rule), a ServiceAccount, or explicit values.

Errors name the kubeconfig field, never its value: tokens and keys must not reach logs.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import kubeconfig
from .errors import ConfigError

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


def _pem(value: str | bytes | None) -> bytes | None:
    """PEM text as given (from_url callers hold files' contents; kubeconfigs go through the kubeconfig rule)."""
    if value is None:
        return None
    raw = value.encode() if isinstance(value, str) else value
    if b"-----BEGIN " not in raw:
        raise ConfigError("certificate data is not PEM")
    return raw


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


def from_kubeconfig(text: str | bytes, context: str | None = None) -> Credentials:
    """Credentials from a kubeconfig's YAML text, judged by the one kubeconfig rule (dvp_common.kubeconfig)."""
    try:
        kc = kubeconfig.parse(text, context)
    except kubeconfig.KubeconfigInvalid as exc:
        raise ConfigError(str(exc)) from None
    return Credentials(host=kc.server, token=kc.token, ca_data=kc.ca_pem, client_cert_data=kc.client_cert_pem,
                       client_key_data=kc.client_key_pem, insecure=kc.insecure, namespace=kc.namespace)


def from_kubeconfig_base64(value: str | bytes, context: str | None = None) -> Credentials:
    """Credentials from base64 of a kubeconfig: the one encoding it travels in (DVP_KUBERNETES_CONFIG_BASE64)."""
    try:
        text = kubeconfig.decode_base64(value)
    except kubeconfig.KubeconfigInvalid as exc:
        raise ConfigError(str(exc)) from None
    return from_kubeconfig(text, context)


def from_file_or_service_account(kubeconfig_path: str | Path = "") -> Credentials:
    """A component's guest API: the kubeconfig file when one is given (local runs, the demo), else the pod's
    ServiceAccount. An unreadable file raises OSError, which entry points report as one line."""
    if kubeconfig_path:
        return from_kubeconfig(Path(kubeconfig_path).read_text(encoding="utf-8"))
    return from_service_account()

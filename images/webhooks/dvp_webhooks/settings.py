# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings: `python -m dvp_webhooks <validation|snapshot>` and the flags templates/_helpers.tpl
(dvp.webhook_server) passes; each also a WEBHOOKS_* variable."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dvp_common.runtime.settings import ConfigInvalid, bind, host_port, load, log_level, setting

from .handlers import ROUTES


@dataclass(frozen=True)
class Settings:
    mode: str = setting("validation", derived=True)  # the first argument: which routes to serve
    listen_address: str = setting("0.0.0.0:8443", parse=host_port)  # noqa: S104 - the pod's address
    tls_cert_file: str = "/etc/webhook/tls/tls.crt"
    tls_key_file: str = "/etc/webhook/tls/tls.key"
    metrics_address: str | None = bind(None)  # /metrics over HTTP, for kube-rbac-proxy on loopback; off by default
    log_level: str = log_level()
    kubeconfig: str = ""  # the guest API; empty: the in-cluster ServiceAccount
    module_namespace: str = "d8-cloud-provider-dvp"
    cluster_prefix: str = ""  # global.clusterConfiguration.cloud.prefix: permanent nodes are named after it


def load_settings(argv: Sequence[str], env: Mapping[str, str]) -> Settings:
    if not argv or argv[0] not in ROUTES:
        raise ConfigInvalid(f"the first argument must be the mode: {' or '.join(sorted(ROUTES))}")
    return dataclasses.replace(load(Settings, argv[1:], env, prefix="WEBHOOKS_"), mode=argv[0])

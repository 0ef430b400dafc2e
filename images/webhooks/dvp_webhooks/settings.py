# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings: `python -m dvp_webhooks <validation|snapshot>` and the flags templates/_helpers.tpl
(dvp.webhook_server) passes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dvp_common.runtime.settings import ConfigInvalid, load

from .handlers import ROUTES

LOG_LEVELS = ("Debug", "Info", "Warn", "Error")


@dataclass(frozen=True)
class Settings:
    listen_address: str = ":8443"
    tls_cert_file: str = "/etc/webhook/tls/tls.crt"
    tls_key_file: str = "/etc/webhook/tls/tls.key"
    log_level: str = "Info"
    kubeconfig: str = ""  # the guest API; empty: the in-cluster ServiceAccount
    module_namespace: str = "d8-cloud-provider-dvp"
    cluster_prefix: str = ""  # global.clusterConfiguration.cloud.prefix: permanent nodes are named after it

    def validate(self) -> None:
        host, _, port = self.listen_address.rpartition(":")
        if not port.isdigit() or not 0 <= int(port) < 65536:
            raise ConfigInvalid(f"--listen-address: {self.listen_address!r} is not [host]:port")
        if self.log_level not in LOG_LEVELS:
            raise ConfigInvalid(f"--log-level: {self.log_level!r} is not one of {', '.join(LOG_LEVELS)}")


def load_settings(argv: Sequence[str], env: Mapping[str, str]) -> tuple[str, Settings]:
    if not argv or argv[0] not in ROUTES:
        raise ConfigInvalid(f"the first argument must be the mode: {' or '.join(sorted(ROUTES))}")
    return argv[0], load(Settings, argv[1:], env, prefix="WEBHOOKS_")

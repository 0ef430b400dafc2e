# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings: flags as templates/cloud-data-discoverer/deployment.yaml passes them (each also an env var,
as upstream: DISCOVERY_PERIOD, LISTEN_ADDRESS, ...); the DVP connection from DVP_KUBERNETES_CONFIG_BASE64,
DVP_NAMESPACE, CLUSTER_UUID. One ConfigInvalid line per problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dvp_common.dvp.connection import DVPSettings
from dvp_common.kube import ConfigError
from dvp_common.runtime.settings import ConfigInvalid, load

LOG_LEVELS = ("Debug", "Info", "Warn", "Error")


@dataclass(frozen=True)
class Settings:
    discovery_period: float = 3600.0
    listen_address: str = "127.0.0.1:9000"  # upstream's default; the Deployment passes 127.0.0.1:8081
    log_level: str = field(default="Info", metadata={"env": "LOGGER_LEVEL"})
    kubeconfig: str = ""  # the guest API; empty: the in-cluster ServiceAccount
    # Writes to the guest API: upstream retries 15 times, 3 s doubling to 30 s.
    write_attempts: int = 15
    write_backoff: float = 3.0
    write_backoff_cap: float = 30.0
    quota_threshold: float = field(default=0.9, metadata={"help": "a quota used to this fraction is 'near'"})
    orphan_min_age: float = 600.0  # CSI creates a disk before its PV: younger disks are not judged
    # A class gone from DVP stays in the discovery data this long (a guest StorageClass may still use it).
    vanished_class_grace: float = 7 * 24 * 3600.0
    # Each DVP read in all (retries included), however slowly the answer arrives.
    dvp_request_deadline: float = 60.0

    def validate(self) -> None:
        if self.discovery_period <= 0:
            raise ConfigInvalid("--discovery-period must be positive")
        host, _, port = self.listen_address.rpartition(":")
        if not port.isdigit() or not 0 <= int(port) < 65536:
            raise ConfigInvalid(f"--listen-address: {self.listen_address!r} is not host:port")
        if self.log_level not in LOG_LEVELS:
            raise ConfigInvalid(f"--log-level: {self.log_level!r} is not one of {', '.join(LOG_LEVELS)}")
        if self.write_attempts < 1:
            raise ConfigInvalid("--write-attempts must be at least 1")
        if self.vanished_class_grace < 0:
            raise ConfigInvalid("--vanished-class-grace must not be negative")
        if self.dvp_request_deadline <= 0:
            raise ConfigInvalid("--dvp-request-deadline must be positive")
        if not 0 < self.quota_threshold <= 1:
            raise ConfigInvalid("--quota-threshold must be in (0, 1]")


def load_settings(argv: Sequence[str], env: Mapping[str, str]) -> tuple[Settings, DVPSettings]:
    settings = load(Settings, argv, env)
    try:
        dvp = DVPSettings.from_env(env)
    except ConfigError as exc:
        raise ConfigInvalid(str(exc)) from None
    return settings, dvp

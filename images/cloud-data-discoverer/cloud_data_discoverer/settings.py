# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings, each default written once (dvp_common.runtime.settings): flags as
templates/cloud-data-discoverer/deployment.yaml passes them (each also an env var, as upstream: DISCOVERY_PERIOD,
LISTEN_ADDRESS, ...); the DVP connection from DVP_KUBERNETES_CONFIG_BASE64, DVP_NAMESPACE, CLUSTER_UUID. One
ConfigInvalid line per problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dvp_common.dvp.connection import DVPSettings
from dvp_common.runtime.settings import host_port, load, log_level, setting


@dataclass(frozen=True, kw_only=True)
class Settings:
    dvp: DVPSettings = setting(source=DVPSettings.from_env, secret=True)
    discovery_period: float = setting(3600.0, positive=True)
    # upstream's default; the Deployment passes 127.0.0.1:8081
    listen_address: str = setting("127.0.0.1:9000", parse=host_port)
    log_level: str = log_level(env="LOGGER_LEVEL")
    kubeconfig: str = ""  # the guest API; empty: the in-cluster ServiceAccount
    # Writes to the guest API: upstream retries 15 times, 3 s doubling to 30 s.
    write_attempts: int = setting(15, minimum=1)
    write_backoff: float = setting(3.0, positive=True)
    write_backoff_cap: float = setting(30.0, positive=True)
    quota_threshold: float = setting(0.9, help="a quota used to this fraction is 'near'")
    orphan_min_age: float = 600.0  # CSI creates a disk before its PV: younger disks are not judged
    # A class gone from DVP stays in the discovery data this long (a guest StorageClass may still use it).
    vanished_class_grace: float = setting(7 * 24 * 3600.0, minimum=0)
    # Each DVP read in all (retries included), however slowly the answer arrives.
    dvp_request_deadline: float = setting(60.0, positive=True)

    def validate(self) -> None:
        if not 0 < self.quota_threshold <= 1:
            raise ValueError("--quota-threshold must be in (0, 1]")


def load_settings(argv: Sequence[str], env: Mapping[str, str]) -> Settings:
    return load(Settings, argv, env)

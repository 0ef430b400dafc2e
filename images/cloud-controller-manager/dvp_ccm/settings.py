# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings of the CCM, each default written once (dvp_common.runtime.settings): flags as
templates/cloud-controller-manager/deployment.yaml passes them, the DVP connection from the environment
(DVP_KUBERNETES_CONFIG_BASE64, DVP_NAMESPACE, CLUSTER_UUID); one ConfigInvalid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dvp_common.dvp.connection import DVPSettings
from dvp_common.runtime.manager import ManagerSettings
from dvp_common.runtime.settings import ConfigInvalid, Opt, bind, group, setting
from dvp_common.runtime.settings import load as load_settings

from dvp_ccm.domain.lifecycle import LifecycleConfig
from dvp_ccm.domain.loadbalancer import Healthchecks
from dvp_ccm.lbkinds import AUTO, MODES

__all__ = ["CONTROLLERS", "LIFECYCLE", "NODE", "SERVICE", "ConfigInvalid", "Settings", "load"]

NODE, LIFECYCLE, SERVICE = "cloud-node", "cloud-node-lifecycle", "service-lb-controller"
CONTROLLERS = (NODE, LIFECYCLE, SERVICE)


def _lifecycle() -> LifecycleConfig:
    return LifecycleConfig(out_of_service=True, grace=90.0, hold=60.0, recheck=10.0)


@dataclass(frozen=True, kw_only=True)
class Settings(ManagerSettings):
    dvp: DVPSettings = setting(source=DVPSettings.from_env, secret=True)
    cloud_provider: str = setting("dvp", choices=("dvp",))
    controllers: frozenset[str] = frozenset(CONTROLLERS)
    leader_election_id: str = "cloud-controller-manager"
    health_bind: str | None = bind("0.0.0.0:4211", flag="--health-probe-bind-address")  # noqa: S104 - probes
    metrics_bind: str | None = bind("127.0.0.1:4212", flag="--metrics-bind-address")  # not the probes' port
    # seconds between full resyncs (addresses, labels, LB node sets)
    address_refresh: float = setting(300.0, flag="--node-status-update-frequency", positive=True)
    lifecycle: LifecycleConfig = group(
        _lifecycle, out_of_service=Opt(flag="--out-of-service-taint"),
        grace=Opt(flag="--out-of-service-grace-period", positive=True),
        hold=Opt(flag="--out-of-service-node-delete-delay", positive=True),
        recheck=Opt(flag="--node-monitor-period", positive=True))
    default_region: str = ""
    default_zone: str = ""
    # the VM network (status.networks[].name; Main: the main one) whose addresses are the Nodes' InternalIPs
    internal_network: str = setting("Main", flag="--internal-network")
    lb_annotation_prefixes: tuple[str, ...] = ()
    health_check_timeout: float = setting(3.0, flag="--lb-health-check-timeout", positive=True)
    # the DVP kind of LoadBalancers: auto = ServiceWithHealthchecks when DVP serves it and the parent's module is on
    # (domain.parent_module; looked at again every recheck s)
    load_balancer_kind: str = setting(AUTO, choices=MODES)
    load_balancer_kind_recheck: float = setting(300.0, positive=True)
    healthchecks: Healthchecks = group(
        Healthchecks, initial_delay=Opt(flag="--lb-probe-initial-delay", positive=True),
        period=Opt(flag="--lb-probe-period", positive=True), timeout=Opt(flag="--lb-probe-timeout", positive=True))

    def validate(self) -> None:
        super().validate()
        bad = sorted(self.controllers - set(CONTROLLERS))
        if bad:
            raise ConfigInvalid(f"--controllers: unknown controller {bad[0]!r} (known: {', '.join(CONTROLLERS)})")


def load(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    return load_settings(Settings, argv, env, prefix=None)

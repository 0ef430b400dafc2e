# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings of the CCM: flags (as templates/cloud-controller-manager/deployment.yaml passes them), the DVP
connection from the environment (DVP_KUBERNETES_CONFIG_BASE64, DVP_NAMESPACE, CLUSTER_UUID); one ConfigInvalid."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dvp_common.dvp.connection import DVPSettings
from dvp_common.kube import ConfigError
from dvp_common.runtime.settings import parse_duration

from dvp_ccm.domain.lifecycle import LifecycleConfig

NODE, LIFECYCLE, SERVICE = "cloud-node", "cloud-node-lifecycle", "service-lb-controller"
CONTROLLERS = (NODE, LIFECYCLE, SERVICE)
LOG_LEVELS = ("Debug", "Info", "Warn", "Error")


class ConfigInvalid(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    dvp: DVPSettings = field(repr=False)
    controllers: frozenset[str] = frozenset(CONTROLLERS)
    kubeconfig: str = ""  # the guest API; empty: the in-cluster ServiceAccount
    leader_elect: bool = False
    leader_election_namespace: str = "d8-cloud-provider-dvp"
    leader_election_id: str = "cloud-controller-manager"
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    health_bind: str | None = "0.0.0.0:4211"  # probes (hostNetwork pod); /metrics is not served here
    metrics_bind: str | None = "127.0.0.1:4212"
    log_level: str = "Info"
    workers: int = 4
    address_refresh: float = 300.0  # seconds between full resyncs (addresses, labels, LB node sets)
    lifecycle: LifecycleConfig = LifecycleConfig()
    default_region: str = ""
    default_zone: str = ""
    lb_annotation_prefixes: tuple[str, ...] = ()
    health_check_timeout: float = 3.0


def _bool(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not a boolean")


def _duration(text: str) -> float:
    try:
        value = parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def _bind(value: str, flag: str) -> str | None:
    """':4211' -> '0.0.0.0:4211'; '0' or '' -> None (off)."""
    if value in ("", "0"):
        return None
    host, _, port = value.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) < 65536:
        raise ConfigInvalid(f"{flag}: {value!r} is not [host]:port")
    return f"{host or '0.0.0.0'}:{port}"  # noqa: S104 - probes reach the pod on its (host network) address


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dvp_ccm", description="cloud-controller-manager for DVP",
                                exit_on_error=False)
    p.add_argument("--cloud-provider", default="dvp")
    p.add_argument("--controllers", default=",".join(CONTROLLERS))
    p.add_argument("--kubeconfig", default="", help="guest kubeconfig file (default: in-cluster ServiceAccount)")
    p.add_argument("--leader-elect", type=_bool, nargs="?", const=True, default=False)
    p.add_argument("--leader-election-namespace", default="d8-cloud-provider-dvp")
    p.add_argument("--leader-election-id", default="cloud-controller-manager")
    p.add_argument("--leader-elect-lease-duration", type=_duration, default=15.0)
    p.add_argument("--leader-elect-renew-deadline", type=_duration, default=10.0)
    p.add_argument("--leader-elect-retry-period", type=_duration, default=2.0)
    p.add_argument("--health-probe-bind-address", default=":4211")
    p.add_argument("--metrics-bind-address", default="127.0.0.1:4212")
    p.add_argument("--log-level", default="Info")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--node-status-update-frequency", type=_duration, default=300.0)
    p.add_argument("--node-monitor-period", type=_duration, default=10.0)
    p.add_argument("--out-of-service-taint", type=_bool, nargs="?", const=True, default=True)
    p.add_argument("--out-of-service-grace-period", type=_duration, default=90.0)
    p.add_argument("--out-of-service-node-delete-delay", type=_duration, default=60.0)
    p.add_argument("--default-region", default="")
    p.add_argument("--default-zone", default="")
    p.add_argument("--lb-annotation-prefixes", default="")
    p.add_argument("--lb-health-check-timeout", type=_duration, default=3.0)
    return p


def load(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    try:
        args, unknown = parser().parse_known_args(list(argv or []))
    except argparse.ArgumentError as exc:
        raise ConfigInvalid(f"flags: {exc}") from None
    if unknown:
        raise ConfigInvalid(f"unknown flag {unknown[0].split('=')[0]}")
    if args.cloud_provider != "dvp":
        raise ConfigInvalid(f"--cloud-provider: {args.cloud_provider!r} is not supported (dvp)")
    controllers = frozenset(c.strip() for c in args.controllers.split(",") if c.strip())
    bad = sorted(controllers - set(CONTROLLERS))
    if bad:
        raise ConfigInvalid(f"--controllers: unknown controller {bad[0]!r} (known: {', '.join(CONTROLLERS)})")
    if args.log_level not in LOG_LEVELS:
        raise ConfigInvalid(f"--log-level: {args.log_level!r} is not one of {', '.join(LOG_LEVELS)}")
    if args.workers < 1:
        raise ConfigInvalid(f"--workers: must be at least 1, got {args.workers}")
    if not args.leader_elect_lease_duration > args.leader_elect_renew_deadline > args.leader_elect_retry_period:
        raise ConfigInvalid("--leader-elect-lease-duration > --leader-elect-renew-deadline > "
                            "--leader-elect-retry-period is required")
    try:
        dvp = DVPSettings.from_env(env)
    except ConfigError as exc:
        raise ConfigInvalid(str(exc)) from None
    return Settings(
        dvp=dvp, controllers=controllers, kubeconfig=args.kubeconfig, leader_elect=args.leader_elect,
        leader_election_namespace=args.leader_election_namespace, leader_election_id=args.leader_election_id,
        lease_duration=args.leader_elect_lease_duration, renew_deadline=args.leader_elect_renew_deadline,
        retry_period=args.leader_elect_retry_period,
        health_bind=_bind(args.health_probe_bind_address, "--health-probe-bind-address"),
        metrics_bind=_bind(args.metrics_bind_address, "--metrics-bind-address"),
        log_level=args.log_level, workers=args.workers, address_refresh=args.node_status_update_frequency,
        lifecycle=LifecycleConfig(out_of_service=args.out_of_service_taint, grace=args.out_of_service_grace_period,
                                  hold=args.out_of_service_node_delete_delay, recheck=args.node_monitor_period),
        default_region=args.default_region, default_zone=args.default_zone,
        lb_annotation_prefixes=tuple(p.strip() for p in args.lb_annotation_prefixes.split(",") if p.strip()),
        health_check_timeout=args.lb_health_check_timeout,
    )

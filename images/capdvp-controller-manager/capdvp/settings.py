# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings of capdvp-controller-manager: defaults, then flags, then environment; one ConfigInvalid.

Flags follow the Go provider's (and templates/capdvp-controller-manager/deployment.yaml): --leader-elect,
--leader-election-namespace, --health-probe-bind-address, --metrics-bind-address, --webhook-bind-address,
--webhook-cert-dir, --log-level. DVP access comes from DVP_KUBERNETES_CONFIG_BASE64, DVP_NAMESPACE, CLUSTER_UUID.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dvp_common.dvp.connection import DVPSettings
from dvp_common.kube import ConfigError

from capdvp.controllers.context import ReconcileConfig

LEADER_ELECTION_ID = "70c82521.cluster.x-k8s.io"
LOG_LEVELS = ("Debug", "Info", "Warn", "Error")


class ConfigInvalid(ValueError):
    pass


def _bind(value: str, flag: str) -> tuple[str, int] | None:
    """':8081' -> ('0.0.0.0', 8081); '0' or '' -> None (off), as controller-runtime reads these flags."""
    if value in ("", "0"):
        return None
    host, _, port = value.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigInvalid(f"{flag}: {value!r} is not [host]:port")
    return (host or "0.0.0.0", int(port))  # noqa: S104 (a pod listens on its own address)


@dataclass(frozen=True)
class Settings:
    dvp: DVPSettings = field(repr=False)
    reconcile: ReconcileConfig
    watch_namespace: str = "d8-cloud-instance-manager"
    leader_elect: bool = False
    leader_election_namespace: str = "d8-cloud-provider-dvp"
    leader_election_id: str = LEADER_ELECTION_ID
    health_bind: tuple[str, int] | None = ("0.0.0.0", 8081)  # noqa: S104
    metrics_bind: tuple[str, int] | None = None
    webhook_bind: tuple[str, int] | None = ("0.0.0.0", 9443)  # noqa: S104
    webhook_cert_dir: str = "/etc/capdvp/webhook-tls"
    workers: int = 8
    resync_seconds: float = 600.0
    log_level: str = "Info"
    kubeconfig: str = ""  # the guest API; empty: the in-pod ServiceAccount


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m capdvp", description="Cluster API infrastructure provider for DVP")
    p.add_argument("--kubeconfig", default="", help="guest kubeconfig file (default: the in-pod ServiceAccount)")
    p.add_argument("--leader-elect", action="store_true")
    p.add_argument("--leader-election-namespace", default="d8-cloud-provider-dvp")
    p.add_argument("--leader-election-id", default=LEADER_ELECTION_ID)
    p.add_argument("--namespace", default="d8-cloud-instance-manager", help="guest namespace with CAPI objects")
    p.add_argument("--health-probe-bind-address", default=":8081")
    p.add_argument("--metrics-bind-address", default="0")
    p.add_argument("--webhook-bind-address", default=":9443")
    p.add_argument("--webhook-cert-dir", default="/etc/capdvp/webhook-tls")
    p.add_argument("--log-level", default="Info", choices=LOG_LEVELS)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--resync-seconds", type=float, default=600.0)
    p.add_argument("--vm-delete-timeout", type=float, default=600.0)
    p.add_argument("--disk-delete-timeout", type=float, default=300.0)
    p.add_argument("--cluster-cleanup-timeout", type=float, default=900.0)
    p.add_argument("--recheck-seconds", type=float, default=ReconcileConfig.recheck,
                   help="re-check interval while a deletion, clean-up or warm update is under way")
    p.add_argument("--update-timeout", type=float, default=ReconcileConfig.update_timeout,
                   help="seconds a warm update may take to stop or restart the VM")
    p.add_argument("--additional-vm-labels", default=None, help="JSON object (env ADDITIONAL_VM_LABELS)")
    p.add_argument("--control-plane-endpoint", default=None, help="host:port (env CONTROL_PLANE_ENDPOINT)")
    return p


def load(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    args = parser().parse_args(argv)
    try:
        dvp = DVPSettings.from_env(env)
    except ConfigError as exc:
        raise ConfigInvalid(str(exc)) from None
    raw_labels = args.additional_vm_labels or env.get("ADDITIONAL_VM_LABELS") or "{}"
    try:
        labels = json.loads(raw_labels)
    except ValueError:
        raise ConfigInvalid("--additional-vm-labels: not a JSON object") from None
    if not isinstance(labels, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
        raise ConfigInvalid("--additional-vm-labels: must map strings to strings")
    endpoint = args.control_plane_endpoint or env.get("CONTROL_PLANE_ENDPOINT") or ""
    if not endpoint and env.get("KUBERNETES_SERVICE_HOST"):
        endpoint = f"{env['KUBERNETES_SERVICE_HOST']}:{env.get('KUBERNETES_SERVICE_PORT', '443')}"
    cp_host, cp_port = "", 6443
    if endpoint:
        cp_host, _, port = endpoint.rpartition(":")
        if not cp_host or not port.isdigit():
            raise ConfigInvalid(f"--control-plane-endpoint: {endpoint!r} is not host:port")
        cp_port = int(port)
    for flag, value in (("--workers", args.workers), ("--vm-delete-timeout", args.vm_delete_timeout),
                        ("--disk-delete-timeout", args.disk_delete_timeout),
                        ("--cluster-cleanup-timeout", args.cluster_cleanup_timeout),
                        ("--recheck-seconds", args.recheck_seconds), ("--update-timeout", args.update_timeout),
                        ("--resync-seconds", args.resync_seconds)):
        if value <= 0:
            raise ConfigInvalid(f"{flag}: must be positive, got {value}")
    return Settings(
        dvp=dvp,
        reconcile=ReconcileConfig(
            dvp_namespace=dvp.namespace, cluster_uuid=dvp.cluster_uuid, additional_vm_labels=labels,
            vm_delete_timeout=args.vm_delete_timeout, disk_delete_timeout=args.disk_delete_timeout,
            cluster_cleanup_timeout=args.cluster_cleanup_timeout, recheck=args.recheck_seconds,
            update_timeout=args.update_timeout, control_plane_host=cp_host,
            control_plane_port=cp_port),
        watch_namespace=args.namespace,
        leader_elect=args.leader_elect,
        leader_election_namespace=args.leader_election_namespace,
        leader_election_id=args.leader_election_id,
        health_bind=_bind(args.health_probe_bind_address, "--health-probe-bind-address"),
        metrics_bind=_bind(args.metrics_bind_address, "--metrics-bind-address"),
        webhook_bind=_bind(args.webhook_bind_address, "--webhook-bind-address"),
        webhook_cert_dir=args.webhook_cert_dir,
        workers=args.workers,
        resync_seconds=args.resync_seconds,
        log_level=args.log_level,
        kubeconfig=args.kubeconfig,
    )

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings of capdvp-controller-manager, each default written once (dvp_common.runtime.settings).

Flags follow the Go provider's (and templates/capdvp-controller-manager/deployment.yaml): --leader-elect,
--leader-election-namespace, --health-probe-bind-address, --metrics-bind-address, --webhook-bind-address,
--webhook-cert-dir, --log-level. DVP access comes from DVP_KUBERNETES_CONFIG_BASE64, DVP_NAMESPACE, CLUSTER_UUID.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dvp_common.dvp.connection import DVPSettings
from dvp_common.runtime.manager import ManagerSettings
from dvp_common.runtime.settings import ConfigInvalid, bind, group, setting
from dvp_common.runtime.settings import load as load_settings

__all__ = ["LEADER_ELECTION_ID", "ConfigInvalid", "ReconcileConfig", "Settings", "load"]

LEADER_ELECTION_ID = "70c82521.cluster.x-k8s.io"


def _in_cluster_api(env: Mapping[str, str]) -> str:
    """In a pod, the guest API's Service address is the control plane endpoint machines join."""
    host = env.get("KUBERNETES_SERVICE_HOST")
    return f"{host}:{env.get('KUBERNETES_SERVICE_PORT', '443')}" if host else ""


@dataclass(frozen=True)
class ReconcileConfig:
    """What reconciling needs; each field but the derived ones is a flag of its own name."""

    dvp_namespace: str = setting("", derived=True)
    cluster_uuid: str = setting("", derived=True)
    additional_vm_labels: Mapping[str, str] = setting(default_factory=dict, env="ADDITIONAL_VM_LABELS",
                                                      help="JSON object")
    vm_delete_timeout: float = setting(600.0, positive=True)  # seconds after the DeckhouseMachine's deletion
    disk_delete_timeout: float = setting(300.0, positive=True)  # on top of the VM's
    cluster_cleanup_timeout: float = setting(900.0, positive=True)
    # re-check for things no watch tells us about (a class or image appearing)
    waiting_requeue: float = setting(30.0, positive=True)
    # re-check while a deletion, clean-up or warm update is under way: those are also watched, this only bounds
    # a missed event
    recheck: float = setting(5.0, positive=True, flag="--recheck-seconds")
    update_timeout: float = setting(600.0, positive=True)  # seconds a warm update may take to stop or restart the VM
    # seconds from DVP's Running condition until the guest agent answers and the Node registers (GuestBooted)
    guest_boot_timeout: float = setting(900.0, positive=True)
    control_plane_host: str = setting("", derived=True)
    control_plane_port: int = setting(6443, derived=True)


@dataclass(frozen=True, kw_only=True)
class Settings(ManagerSettings):
    dvp: DVPSettings = setting(source=DVPSettings.from_env, secret=True)
    reconcile: ReconcileConfig = group(ReconcileConfig)
    watch_namespace: str = setting("d8-cloud-instance-manager", flag="--namespace",
                                   help="guest namespace with CAPI objects")
    leader_election_id: str = LEADER_ELECTION_ID
    health_bind: str | None = bind("0.0.0.0:8081", flag="--health-probe-bind-address")  # noqa: S104
    webhook_bind: str | None = bind("0.0.0.0:9443", flag="--webhook-bind-address")  # noqa: S104
    webhook_cert_dir: str = "/etc/capdvp/webhook-tls"
    workers: int = setting(8, minimum=1)
    resync_seconds: float = setting(600.0, positive=True)
    control_plane_endpoint: str = setting("", flag="--control-plane-endpoint", env="CONTROL_PLANE_ENDPOINT",
                                          source=_in_cluster_api, help="host:port")

    def validate(self) -> Settings:
        super().validate()
        endpoint, host, port = self.control_plane_endpoint, "", 6443
        if endpoint:
            host, _, text = endpoint.rpartition(":")
            if not host or not text.isdigit() or not 0 < int(text) < 65536:
                raise ConfigInvalid(f"--control-plane-endpoint: {endpoint!r} is not host:port")
            port = int(text)
        return dataclasses.replace(self, reconcile=dataclasses.replace(
            self.reconcile, dvp_namespace=self.dvp.namespace, cluster_uuid=self.dvp.cluster_uuid,
            control_plane_host=host, control_plane_port=port))


def load(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    return load_settings(Settings, argv, env, prefix=None)

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings from flags and environment variables, each default written once (dvp_common.runtime.settings);
DVP credentials come from the dvp-credentials Secret."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dvp_common.runtime.settings import ConfigInvalid, load, log_level, setting

from . import DRIVER_NAME

__all__ = ["MODES", "ConfigInvalid", "Settings", "Timeouts", "parse"]

MODES = ("controller", "node", "all")


@dataclass(frozen=True)
class Timeouts:
    create: float = 300.0  # VirtualDisk Ready / WaitForFirstConsumer
    delete: float = 120.0  # VirtualDisk gone
    attach: float = 600.0  # VMBDA Attached
    detach: float = 15.0  # VMBDA gone and disk no longer on the VM; then Unavailable, the attacher retries
    snapshot: float = 300.0  # VirtualDiskSnapshot Ready (clones)
    device: float = 10.0  # the udev link of a freshly attached disk
    modify: float = 600.0  # VirtualDisk on its new storage class (a migration copies the data)


@dataclass(frozen=True, kw_only=True)
class Settings:
    endpoint: str = setting("unix:///csi/csi.sock", env="CSI_ENDPOINT")
    mode: str = setting("all", env="CSI_MODE", choices=MODES)
    node_name: str = setting("", env="NODE_NAME")
    driver_name: str = DRIVER_NAME
    namespace: str = setting("", env="DVP_NAMESPACE")
    cluster_uuid: str = setting("", env="CLUSTER_UUID")
    # base64 of the DVP kubeconfig; never logged
    kubeconfig: str = setting("", flag="", env="DVP_KUBERNETES_CONFIG_BASE64", secret=True)
    device_dir: str = "/dev/disk/by-id"
    # host:port for /metrics; off by default (9808/9809 belong to the sidecars)
    metrics_address: str = setting("", env="METRICS_ADDRESS")
    log_level: str = log_level(env="LOG_LEVEL")
    workers: int = setting(256, minimum=1)  # waits block a worker: the provisioner runs 100 workers, each may wait
    max_block_devices: int = setting(16, derived=True)  # DVP: at most 16 block devices per VM, static and hot-plugged
    default_size: int = setting(1 << 30, derived=True)
    dead_vm_reap_interval: float = setting(60.0, minimum=0)  # controller: detach VMBDAs of dead VMs; 0 disables
    # controller, on the same passes: VMBDAs no guest VolumeAttachment wants for this long are deleted; 0 disables
    orphan_attachment_grace: float = setting(300.0, minimum=0)
    # the guest API (VolumeAttachments for the orphan pass; PersistentVolumes and Nodes, the proofs of adoption): a
    # kubeconfig file, else the pod's ServiceAccount
    guest_kubeconfig: str = setting("", env="KUBECONFIG")
    timeouts: Timeouts = setting(default_factory=Timeouts, derived=True)

    @property
    def controller(self) -> bool:
        return self.mode in ("controller", "all")

    @property
    def node(self) -> bool:
        return self.mode in ("node", "all")

    def validate(self) -> Settings:
        if not self.endpoint.startswith(("unix://", "tcp://")):
            raise ConfigInvalid(f"--endpoint: {self.endpoint!r} must start with unix:// or tcp://")
        if self.node and not self.node_name:
            raise ConfigInvalid("--node-name (NODE_NAME) is required in node mode")
        if self.controller:
            for flag, value in (("--namespace (DVP_NAMESPACE)", self.namespace),
                                ("--cluster-uuid (CLUSTER_UUID)", self.cluster_uuid)):
                if not value:
                    raise ConfigInvalid(f"{flag} is required in controller mode")
        return self


def parse(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Settings:
    return load(Settings, argv, env, prefix=None)

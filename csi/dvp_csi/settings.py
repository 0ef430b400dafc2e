# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings from flags, with environment defaults (DVP credentials come from the dvp-credentials Secret)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from . import DRIVER_NAME

MODES = ("controller", "node", "all")


class ConfigInvalid(ValueError):
    pass


@dataclass(frozen=True)
class Timeouts:
    create: float = 300.0  # VirtualDisk Ready / WaitForFirstConsumer
    delete: float = 120.0  # VirtualDisk gone
    attach: float = 600.0  # VMBDA Attached
    detach: float = 15.0  # VMBDA gone and disk no longer on the VM; then Unavailable, the attacher retries
    snapshot: float = 300.0  # VirtualDiskSnapshot Ready (clones)
    device: float = 10.0  # the udev link of a freshly attached disk


@dataclass(frozen=True)
class Settings:
    endpoint: str = "unix:///csi/csi.sock"
    mode: str = "all"
    node_name: str = ""
    driver_name: str = DRIVER_NAME
    namespace: str = ""
    cluster_uuid: str = ""
    kubeconfig: str = field(default="", repr=False)  # base64 of the DVP kubeconfig; never logged
    device_dir: str = "/dev/disk/by-id"
    metrics_address: str = ""  # host:port for /metrics; off by default (9808/9809 belong to the sidecars)
    log_level: str = "Info"
    workers: int = 256  # waits block a worker: the provisioner runs 100 workers, each may wait on DVP
    max_block_devices: int = 16  # DVP: at most 16 block devices per VM, static and hot-plugged
    default_size: int = 1 << 30
    dead_vm_reap_interval: float = 60.0  # controller: detach VMBDAs of VMs that no longer run; 0 disables
    timeouts: Timeouts = field(default_factory=Timeouts)

    @property
    def controller(self) -> bool:
        return self.mode in ("controller", "all")

    @property
    def node(self) -> bool:
        return self.mode in ("node", "all")

    def validate(self) -> Settings:
        if self.mode not in MODES:
            raise ConfigInvalid(f"--mode: {self.mode!r} is not one of {', '.join(MODES)}")
        if not self.endpoint.startswith(("unix://", "tcp://")):
            raise ConfigInvalid(f"--endpoint: {self.endpoint!r} must start with unix:// or tcp://")
        if self.node and not self.node_name:
            raise ConfigInvalid("--node-name (NODE_NAME) is required in node mode")
        if self.controller:
            for flag, value in (("--namespace (DVP_NAMESPACE)", self.namespace),
                                ("--cluster-uuid (CLUSTER_UUID)", self.cluster_uuid)):
                if not value:
                    raise ConfigInvalid(f"{flag} is required in controller mode")
        if self.log_level not in ("Debug", "Info", "Warn", "Error"):
            raise ConfigInvalid(f"--log-level: {self.log_level!r} is not one of Debug, Info, Warn, Error")
        return self


def parse(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    p = argparse.ArgumentParser(prog="python -m dvp_csi", description="CSI driver " + DRIVER_NAME)
    p.add_argument("--endpoint", default=env.get("CSI_ENDPOINT", Settings.endpoint))
    p.add_argument("--mode", default=env.get("CSI_MODE", Settings.mode), choices=MODES)
    p.add_argument("--node-name", default=env.get("NODE_NAME", ""))
    p.add_argument("--driver-name", default=DRIVER_NAME)
    p.add_argument("--namespace", default=env.get("DVP_NAMESPACE", ""))
    p.add_argument("--cluster-uuid", default=env.get("CLUSTER_UUID", ""))
    p.add_argument("--device-dir", default=Settings.device_dir)
    p.add_argument("--metrics-address", default=env.get("METRICS_ADDRESS", Settings.metrics_address))
    p.add_argument("--log-level", default=env.get("LOG_LEVEL", Settings.log_level))
    p.add_argument("--workers", type=int, default=Settings.workers)
    p.add_argument("--dead-vm-reap-interval", type=float, default=Settings.dead_vm_reap_interval)
    a = p.parse_args(list(argv))
    return Settings(
        endpoint=a.endpoint, mode=a.mode, node_name=a.node_name, driver_name=a.driver_name, namespace=a.namespace,
        cluster_uuid=a.cluster_uuid, kubeconfig=env.get("DVP_KUBERNETES_CONFIG_BASE64", ""),
        device_dir=a.device_dir, metrics_address=a.metrics_address, log_level=a.log_level, workers=a.workers,
        dead_vm_reap_interval=a.dead_vm_reap_interval,
    ).validate()

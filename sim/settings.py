# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed settings of the simulator: latencies per phase, pools, quota and the faults to inject."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dvp_common.kube.faults import FaultHook

DVP_API_VERSIONS = ("v1.8.0", "v1.0.0")
MAX_BLOCK_DEVICES = 16  # per VM, static and hot-plugged together


class SettingsInvalid(ValueError):
    pass


@dataclass
class SimConfig:
    # Seconds an object stays in a phase before the next one, keyed "<Kind>.<Phase>" (e.g.
    # "VirtualDisk.Provisioning"); unlisted phases use default_latency.
    latency: dict[str, float] = field(default_factory=dict)
    default_latency: float = 0.05
    # "<Kind>.<Phase>" entries that never finish (the object stays in that phase).
    stuck: set[str] = field(default_factory=set)
    # Sum of disk sizes allowed per namespace; a disk past it gets Ready=False reason QuotaExceeded.
    quota_bytes: int | None = None
    # Play the quota controller for storage: ResourceQuota status.hard/status.used of the storage keys follow the
    # admitted disks, and disks are admitted one at a time (a quota's spec.hard is enforced either way).
    quota_status: bool = False
    # VM addresses (VirtualMachineIPAddress + leases). Wide: a test session's DVP API is never cleaned (no namespace
    # controller runs), so every test's leases stay taken until the session ends.
    ip_pool: str = "10.66.0.0/16"
    # Seconds a lease stays Released once its address is gone, before it is deleted (DVP's
    # VIRTUAL_MACHINE_IP_LEASES_RETENTION_DURATION, 10m by default); 0: deleted at once, the IP is free again.
    lease_retention: float = 0.0
    lb_pool: str = "192.0.2.0/24"  # LoadBalancer ingress addresses (TEST-NET-1)
    nodes: tuple[str, ...] = ("dvp-node-1", "dvp-node-2", "dvp-node-3")  # DVP nodes VMs run on
    # Labels of those nodes (e.g. topology.kubernetes.io/zone); a VM runs only on a node its nodeSelector matches.
    node_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    # Whether the guest agent in a running VM answers (AgentReady); False plays a guest that never boots.
    guest_agent: bool = True
    image_size: str = "2Gi"  # what every VirtualImage / ClusterVirtualImage "unpacks" to
    require_vm_class: bool = True  # a VM whose VirtualMachineClass is missing stays Pending
    namespace: str | None = None  # None: every namespace
    watch_timeout: int = 2  # seconds per watch request; bounds how long stop() waits for informer threads
    faults: FaultHook | None = None  # injected into the simulator's own client (its requests fail/drop)
    workers: int = 8  # reconciles in flight at once (DVP's controllers do not wait for each other's writes)
    # address pools of additional networks (spec.networks[].name -> CIDR, IPv4 or IPv6): a VM on one gets the host
    # of the same index as its main address (unique, stable); a network without a pool reports no address
    network_pools: dict[str, str] = field(default_factory=dict)
    # ServiceWithHealthchecks probe result of (VM, port); None: domain.healthchecks.default_probe (an annotation)
    probe: Callable[[dict[str, Any], int], bool] | None = None
    # which DVP spelling of a renamed condition reason the simulator writes (dvp_common.dvp.conditions: "v1.8.0"
    # writes `Running`, `ChangesPendingRestart`; "v1.0.0" `VirtualMachineRunning`, `RestartAwaitingChangesExist`)
    dvp_api_version: str = "v1.8.0"

    def delay(self, kind: str, phase: str) -> float | None:
        """Seconds to spend in `phase`, or None when the phase never finishes."""
        key = f"{kind}.{phase}"
        if key in self.stuck:
            return None
        return self.latency.get(key, self.default_latency)

    def validate(self) -> SimConfig:
        if self.dvp_api_version not in DVP_API_VERSIONS:
            raise SettingsInvalid(f"SimConfig.dvp_api_version: {self.dvp_api_version!r} is not one of "
                                  f"{', '.join(DVP_API_VERSIONS)}")
        for name, cidr in self.network_pools.items():
            try:
                ipaddress.ip_network(cidr)
            except ValueError as exc:
                raise SettingsInvalid(f"SimConfig.network_pools[{name!r}]: {exc}") from None
        for name in ("ip_pool", "lb_pool"):
            try:
                net = ipaddress.ip_network(getattr(self, name))
            except ValueError as exc:
                raise SettingsInvalid(f"SimConfig.{name}: {exc}") from None
            if net.num_addresses < 4:
                raise SettingsInvalid(f"SimConfig.{name}: {net} is too small")
        for key, value in self.latency.items():
            if "." not in key or value < 0:
                raise SettingsInvalid(f"SimConfig.latency[{key!r}]: expected '<Kind>.<Phase>' and seconds >= 0")
        if self.lease_retention < 0:
            raise SettingsInvalid("SimConfig.lease_retention: must be >= 0")
        if self.default_latency < 0:
            raise SettingsInvalid("SimConfig.default_latency: must be >= 0")
        if self.workers < 1:
            raise SettingsInvalid("SimConfig.workers: at least one")
        if not self.nodes:
            raise SettingsInvalid("SimConfig.nodes: at least one node")
        unknown = set(self.node_labels) - set(self.nodes)
        if unknown:
            raise SettingsInvalid(f"SimConfig.node_labels: {', '.join(sorted(unknown))} not in SimConfig.nodes")
        if self.quota_bytes is not None and self.quota_bytes < 0:
            raise SettingsInvalid("SimConfig.quota_bytes: must be >= 0")
        return self

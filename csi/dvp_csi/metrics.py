# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Prometheus metrics of the driver (served on --metrics-address)."""

from __future__ import annotations

from dvp_common.kube.metrics import RequestMetrics
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)
RPC_TOTAL = Counter("dvp_csi_rpc_total", "CSI calls by method and gRPC code", ["method", "code"], registry=REGISTRY)
RPC_SECONDS = Histogram("dvp_csi_rpc_duration_seconds", "CSI call duration", ["method"], registry=REGISTRY,
                        buckets=(0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 600))
DEAD_VM_DETACHES = Counter("dvp_csi_dead_vm_detaches_total", "VMBDAs removed because their VM no longer runs",
                           registry=REGISTRY)
ORPHAN_DETACHES = Counter("dvp_csi_orphan_attachment_detaches_total",
                          "VMBDAs removed because no VolumeAttachment wanted them for the grace period",
                          registry=REGISTRY)
ORPHANS_PENDING = Gauge("dvp_csi_orphan_attachments_pending",
                        "VMBDAs no VolumeAttachment wants, still within the grace period (last pass)",
                        registry=REGISTRY)
ATTACHMENTS_PENDING = Gauge("dvp_csi_attachments_pending",
                            "VMBDAs of this cluster DVP has not attached yet (last pass)", registry=REGISTRY)
ATTACHMENT_PENDING_SECONDS = Gauge("dvp_csi_attachment_pending_seconds",
                                   "Age of each VMBDA DVP has not attached yet (last pass)",
                                   ["vmbda", "volume", "vm", "phase"], registry=REGISTRY)
VOLUME_ABNORMAL = Gauge("dvp_csi_volume_abnormal", "1 for each volume whose VirtualDisk DVP reports lost or failed",
                        ["volume", "phase", "reason"], registry=REGISTRY)
ADOPTIONS = Counter("dvp_csi_adoptions_total", "Objects the upstream driver made, adopted with proof (a PV or Node "
                    "of this cluster names them), by kind", ["kind"], registry=REGISTRY)
for _kind in ("VirtualDisk", "VirtualMachineBlockDeviceAttachment"):  # the two kinds the driver adopts
    ADOPTIONS.labels(kind=_kind)
# Bounded label sets (domain/census.py): DVP's phases of each kind.
VOLUMES = Gauge("dvp_csi_volumes", "This cluster's VirtualDisks by DVP phase (last pass)", ["phase"],
                registry=REGISTRY)
ATTACHMENTS = Gauge("dvp_csi_attachments", "This cluster's VMBDAs by DVP phase (last pass)", ["phase"],
                    registry=REGISTRY)
# CreateVolume calls that succeeded, by where the data came from: "snapshot" is a restore, "volume" a clone.
PROVISIONING_SECONDS = Histogram("dvp_csi_volume_provisioning_duration_seconds",
                                 "CreateVolume until the VirtualDisk was ready, by data source (empty, snapshot, "
                                 "volume)", ["source"], registry=REGISTRY,
                                 buckets=(0.5, 1, 5, 15, 30, 60, 120, 300, 600))
# DVP API requests by verb and resource: dvp_client_requests_total, dvp_client_request_errors_total,
# dvp_client_request_duration_seconds (dvp_common.kube.metrics)
DVP_REQUESTS = RequestMetrics(REGISTRY)

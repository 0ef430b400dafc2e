# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""One home for the shapes the upstream (Go) cloud-provider-dvp leaves behind, so a take-over is tested against
what upstream really makes, not against what each test remembers of it.

- `parent`: the parent project's objects (dhctl's master VM, disks, address, cloud-init Secret, NetworkPolicy;
  capdvp's VM, disks, Secret; the CSI disk and attachment; the CCM's parent Service), each function naming the
  upstream file@commit it follows;
- `guest`: the guest's objects that name them (Nodes, PVs and claims, DeckhouseMachines, LoadBalancer Services);
- `world`: a whole upstream-built cluster through a sink (pure snapshot, real API servers, memory APIs), and
  another cluster's objects beside it.
"""

from . import guest, parent
from .world import (
    GUEST,
    OTHER_UUID,
    PARENT,
    PREFIX,
    UUID,
    KubeSink,
    Snapshot,
    UpstreamWorld,
    another_cluster,
    make_machine,
    make_master,
    recorded_sink,
    upstream_world,
)

__all__ = ["GUEST", "OTHER_UUID", "PARENT", "PREFIX", "UUID", "KubeSink", "Snapshot", "UpstreamWorld",
           "another_cluster", "guest", "make_machine", "make_master", "parent", "recorded_sink", "upstream_world"]

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Where the kinds capdvp reads and writes live in the REST API."""

from __future__ import annotations

from dvp_common.dvp import resources as dvp
from dvp_common.kube import Resource

_INFRA = "infrastructure.cluster.x-k8s.io"
_CAPI = "cluster.x-k8s.io"

# Guest cluster
DECKHOUSE_MACHINE = Resource(_INFRA, "v1alpha1", "deckhousemachines", "DeckhouseMachine")
DECKHOUSE_CLUSTER = Resource(_INFRA, "v1alpha1", "deckhouseclusters", "DeckhouseCluster")
DECKHOUSE_MACHINE_TEMPLATE = Resource(_INFRA, "v1alpha1", "deckhousemachinetemplates", "DeckhouseMachineTemplate")
MACHINE = Resource(_CAPI, "v1beta2", "machines", "Machine")
CLUSTER = Resource(_CAPI, "v1beta2", "clusters", "Cluster")
SECRET = Resource("", "v1", "secrets", "Secret")

# DVP cluster
VIRTUAL_MACHINE = dvp.VIRTUAL_MACHINE
VIRTUAL_DISK = dvp.VIRTUAL_DISK
VMBDA = dvp.VMBDA
VMOP = dvp.VIRTUAL_MACHINE_OPERATION
VIRTUAL_MACHINE_CLASS = dvp.VIRTUAL_MACHINE_CLASS
VIRTUAL_IMAGE = dvp.VIRTUAL_IMAGE
CLUSTER_VIRTUAL_IMAGE = dvp.CLUSTER_VIRTUAL_IMAGE
VIRTUAL_DISK_SNAPSHOT = dvp.VIRTUAL_DISK_SNAPSHOT

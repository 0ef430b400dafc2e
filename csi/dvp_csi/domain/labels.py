# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Label and annotation keys on DVP objects (DEVELOPMENT.md, DVP conventions)."""

CLUSTER_UUID = "dvp.deckhouse.io/cluster-uuid"
COMPONENT = "dvp.deckhouse.io/component"
MANAGED_BY = "deckhouse.io/managed-by"
MANAGED_BY_VALUE = "deckhouse"
HOSTNAME = "dvp.deckhouse.io/hostname"
COMPONENT_CSI = "csi"

VIRTUAL_DISK_NAME = "virtualDiskName"
VMBDA_DISK = "virtualMachineDiskName"
VMBDA_VM = "virtualMachineName"

# Admin-only adoption of a pre-existing DVP disk by a pre-provisioned PV: only someone with write access to the DVP
# namespace can set it, never a guest user (csi/README.md).
ADOPT_BY_CLUSTER = "csi.dvp.deckhouse.io/adopt-by-cluster"
# The CSI request name, kept because object names are normalised for Kubernetes.
CSI_NAME_ANNOTATION = "csi.dvp.deckhouse.io/name"

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Label and annotation keys on DVP objects: the shared ones come from dvp_common.dvp.labels."""

from dvp_common.dvp.labels import (  # noqa: F401 (re-exported for the driver)
    CLUSTER_UUID,
    COMPONENT,
    HOSTNAME,
    MANAGED_BY,
    MANAGED_BY_VALUE,
    VIRTUAL_DISK_NAME,
)
from dvp_common.dvp.labels import CSI as COMPONENT_CSI  # noqa: F401
from dvp_common.dvp.labels import VIRTUAL_MACHINE_DISK_NAME as VMBDA_DISK  # noqa: F401
from dvp_common.dvp.labels import VIRTUAL_MACHINE_NAME as VMBDA_VM  # noqa: F401

# Admin-only adoption of a pre-existing DVP disk by a pre-provisioned PV: only someone with write access to the DVP
# namespace can set it, never a guest user (csi/README.md).
ADOPT_BY_CLUSTER = "csi.dvp.deckhouse.io/adopt-by-cluster"
# The CSI request name, kept because object names are normalised for Kubernetes.
CSI_NAME_ANNOTATION = "csi.dvp.deckhouse.io/name"

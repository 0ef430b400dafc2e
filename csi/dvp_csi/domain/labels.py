# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Label and annotation keys on DVP objects: the shared ones come from dvp_common.dvp.labels."""

from dvp_common.dvp.labels import (  # noqa: F401 (re-exported for the driver)
    ADOPT_BY_CLUSTER,  # noqa: F401 (admin-only adoption of a pre-existing disk)
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

# The CSI request name, kept because object names are normalised for Kubernetes.
CSI_NAME_ANNOTATION = "csi.dvp.deckhouse.io/name"
# The size of the source disk on its snapshots (a restore needs at least that much).
SIZE_ANNOTATION = "csi.dvp.deckhouse.io/size-bytes"
# Intermediate snapshots made for a clone carry the clone's name so DeleteVolume can remove them.
CLONE_FOR_LABEL = "csi.dvp.deckhouse.io/clone-for"

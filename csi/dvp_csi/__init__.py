# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CSI driver csi.dvp.deckhouse.io: guest volumes as DVP VirtualDisks, attached by VMBDA."""

from dvp_common.dvp.pv_proof import DRIVER_NAME  # noqa: F401  (one name: the PV rule reads it)

VERSION = "0.1.0"

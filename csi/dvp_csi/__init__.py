# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CSI driver csi.dvp.deckhouse.io: guest volumes as DVP VirtualDisks, attached by VMBDA."""

DRIVER_NAME = "csi.dvp.deckhouse.io"
VERSION = "0.1.0"

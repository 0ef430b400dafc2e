# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The one topology segment the node plugin reports: every node of the cluster reaches every disk of the DVP
project (a disk follows the VM it is hot-plugged into).

Why report any: with no topology key the external-provisioner's capacity tracking compares the empty segment's
selector ({matchLabels: {}}) with the one the API returns ({}), finds its own CSIStorageCapacity obsolete, deletes
and re-creates it on every pass; the scheduler then often finds no capacity for a WaitForFirstConsumer class.
With one key, kubelet labels each Node with it and one CSIStorageCapacity per class covers them all.
"""

from __future__ import annotations

TOPOLOGY_KEY = "topology.csi.dvp.deckhouse.io/scope"
TOPOLOGY_VALUE = "project"
SEGMENT = {TOPOLOGY_KEY: TOPOLOGY_VALUE}

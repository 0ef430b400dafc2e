# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""cloud-data-discoverer: keeps the module's picture of DVP (storage classes, instance types, orphaned disks,
cloud conditions) current in the guest cluster."""

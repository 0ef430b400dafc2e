# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dvp_webhooks: the module's admission webhooks, one small HTTPS AdmissionReview v1 server per mode
(`validation`: credentials Secret, NodeGroup, DVPInstanceClass; `snapshot`: VolumeSnapshot, VolumeSnapshotContent,
VolumeSnapshotClass and the VolumeSnapshotClass selection)."""

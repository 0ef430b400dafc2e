# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Keys of Kubernetes ResourceQuotas that limit storage (pure: DVP makes one PVC per VirtualDisk, and the quota
charges PVCs)."""

from __future__ import annotations

REQUESTS_STORAGE = "requests.storage"
CLASS_SUFFIX = ".storageclass.storage.k8s.io/requests.storage"


def class_key(storage_class: str) -> str:
    """The quota key of one StorageClass's storage requests (Kubernetes' per-class quota)."""
    return f"{storage_class}{CLASS_SUFFIX}"

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Storage headroom of a DVP project from its ResourceQuotas: what one more disk of a DVP StorageClass may take.

Kubernetes charges a PVC's storage request to `requests.storage` and to
`<class>.storageclass.storage.k8s.io/requests.storage` of every quota of the namespace; DVP makes one PVC per
VirtualDisk, so a disk fits only where every such limit has room. The tightest limit wins; no limit: None.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dvp_common.dvp.quotas import REQUESTS_STORAGE, class_key
from dvp_common.quantity import parse_quantity_or_none


def _bytes(value: Any) -> int:
    found = parse_quantity_or_none(value)
    return max(0, found.to_int()) if found is not None else 0


def headroom(quotas: Iterable[Mapping[str, Any]], storage_class: str = "") -> int | None:
    """Bytes still free for a disk of `storage_class` ("" : only the total limit counts); None: unlimited."""
    keys = (REQUESTS_STORAGE, class_key(storage_class)) if storage_class else (REQUESTS_STORAGE,)
    free: int | None = None
    for quota in quotas:
        status = quota.get("status") or {}
        # the quota controller copies spec.hard into status.hard; before its first pass only spec says the limit
        hard = status.get("hard") or (quota.get("spec") or {}).get("hard") or {}
        used = status.get("used") or {}
        for key in keys:
            if key in hard:
                room = max(0, _bytes(hard[key]) - _bytes(used.get(key)))
                free = room if free is None else min(free, room)
    return free

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Ownership rule (tenant isolation): a DVP object is ours only with our cluster UUID and the csi component label.

A disk made by another component (capdvp boot/additional disks) or another cluster is foreign; an admin may mark a
pre-existing disk adoptable by our cluster with the ADOPT_BY_CLUSTER label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dvp_common.dvp import ownership as shared

from . import labels


def _labels(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def is_ours(obj: Mapping[str, Any], cluster_uuid: str) -> bool:
    return bool(cluster_uuid) and shared.is_ours(dict(obj), cluster_uuid, labels.COMPONENT_CSI)


def is_adopted(obj: Mapping[str, Any], cluster_uuid: str) -> bool:
    lb = _labels(obj)
    other_component = lb.get(labels.COMPONENT) not in (None, labels.COMPONENT_CSI)
    return bool(cluster_uuid) and lb.get(labels.ADOPT_BY_CLUSTER) == cluster_uuid and not other_component


def is_usable_volume(disk: Mapping[str, Any], cluster_uuid: str) -> bool:
    return is_ours(disk, cluster_uuid) or is_adopted(disk, cluster_uuid)


def owned_selector(cluster_uuid: str) -> dict[str, str]:
    return {labels.CLUSTER_UUID: cluster_uuid, labels.COMPONENT: labels.COMPONENT_CSI}


def owned_labels(cluster_uuid: str) -> dict[str, str]:
    return shared.owned_labels(cluster_uuid, labels.COMPONENT_CSI)

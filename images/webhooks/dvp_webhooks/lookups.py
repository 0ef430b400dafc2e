# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the rules need to know from the guest cluster, read at admission time (a handful of objects; no cache
to go stale). Absent objects are None; any other API failure raises and the request is denied."""

from __future__ import annotations

from typing import Any

from dvp_common.kube import KubeClient, NotFound, Resource, get_or_none
from dvp_common.kube.resources import (  # noqa: F401  (NODE_GROUP, DVP_INSTANCE_CLASS: read by callers here)
    CONFIG_MAP,
    DVP_INSTANCE_CLASS,
    NODE_GROUP,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
)

VOLUME_SNAPSHOT_CLASS = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses", "VolumeSnapshotClass",
                                 namespaced=False)
MODULE_NAMESPACE = "d8-cloud-provider-dvp"
MIGRATION_MARKER = "d8-module-is-migrating"


class Lookups:
    cluster_prefix = ""  # the cluster's cloud.prefix, from the settings ("" when not given)

    def __init__(self, client: KubeClient, module_namespace: str = MODULE_NAMESPACE, cluster_prefix: str = "") -> None:
        self.client, self.module_namespace, self.cluster_prefix = client, module_namespace, cluster_prefix

    def _get(self, res: Resource, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        return get_or_none(self.client, res, name, namespace)

    def migrating(self) -> bool:
        return self._get(CONFIG_MAP, MIGRATION_MARKER, self.module_namespace) is not None

    def instance_class(self, name: str) -> dict[str, Any] | None:
        return self._get(DVP_INSTANCE_CLASS, name) if name else None

    def node_groups(self) -> list[dict[str, Any]]:
        try:
            return self.client.list_all(NODE_GROUP).items
        except NotFound:  # the NodeGroup API is not served (node-manager absent): nothing can use a class
            return []

    def pvc(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self._get(PERSISTENT_VOLUME_CLAIM, name, namespace)

    def storage_class(self, name: str) -> dict[str, Any] | None:
        return self._get(STORAGE_CLASS, name) if name else None

    def snapshot_classes(self) -> list[dict[str, Any]]:
        return self.client.list_all(VOLUME_SNAPSHOT_CLASS).items

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualImages (project namespace) and ClusterVirtualImages: only read, as boot-disk sources."""

from __future__ import annotations

from ..kube.errors import NotFound
from .connection import DVPConnection
from .objects import Obj
from .resources import CLUSTER_VIRTUAL_IMAGE, VIRTUAL_IMAGE

BOOT_SOURCE_KINDS = ("VirtualImage", "ClusterVirtualImage")


class Images:
    def __init__(self, conn: DVPConnection) -> None:
        self.conn = conn

    def get(self, kind: str, name: str) -> Obj:
        if kind == "VirtualImage":
            return self.conn.client.get(VIRTUAL_IMAGE, name, self.conn.namespace)
        if kind == "ClusterVirtualImage":
            return self.conn.client.get(CLUSTER_VIRTUAL_IMAGE, name)
        raise ValueError(f'image "{name}": kind {kind!r} is not one of {", ".join(BOOT_SOURCE_KINDS)}')

    def exists(self, kind: str, name: str) -> bool:
        try:
            self.get(kind, name)
        except NotFound:
            return False
        return True

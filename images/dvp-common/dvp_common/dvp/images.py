# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualImages (project namespace), ClusterVirtualImages and VirtualDiskSnapshots as disk sources: only read."""

from __future__ import annotations

from ..kube.client import get_or_none
from ..kube.resources import Resource
from .connection import DVPConnection
from .objects import Obj
from .resources import CLUSTER_VIRTUAL_IMAGE, VIRTUAL_DISK_SNAPSHOT, VIRTUAL_IMAGE

BOOT_SOURCE_KINDS = ("VirtualImage", "ClusterVirtualImage")
SOURCES = {"VirtualImage": VIRTUAL_IMAGE, "ClusterVirtualImage": CLUSTER_VIRTUAL_IMAGE,
           "VirtualDiskSnapshot": VIRTUAL_DISK_SNAPSHOT}


class Images:
    def __init__(self, conn: DVPConnection, kinds: tuple[str, ...] = BOOT_SOURCE_KINDS) -> None:
        """`kinds`: the source kinds this user accepts (capdvp also boots from a VirtualDiskSnapshot)."""
        self.conn, self.kinds = conn, kinds

    def _where(self, kind: str, name: str) -> tuple[Resource, str | None]:
        if kind not in self.kinds:
            raise ValueError(f'image "{name}": kind {kind!r} is not one of {", ".join(self.kinds)}')
        res = SOURCES[kind]
        return res, self.conn.namespace if res.namespaced else None

    def get(self, kind: str, name: str) -> Obj:
        res, ns = self._where(kind, name)
        return self.conn.client.get(res, name, ns)

    def get_or_none(self, kind: str, name: str) -> Obj | None:
        res, ns = self._where(kind, name)
        return get_or_none(self.conn.client, res, name, ns)

    def exists(self, kind: str, name: str) -> bool:
        return self.get_or_none(kind, name) is not None

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP StorageClasses (cluster-scoped): only read (discoverer, CSI, capdvp)."""

from __future__ import annotations

from ..kube.resources import STORAGE_CLASS
from ..parent_storage_classes import DEFAULT_ANNOTATIONS, default
from .connection import DVPConnection
from .objects import Obj

__all__ = ["DEFAULT_ANNOTATIONS", "StorageClasses"]


class StorageClasses:
    def __init__(self, conn: DVPConnection) -> None:
        self.conn = conn

    def list(self, deadline: float | None = None) -> list[Obj]:
        return self.conn.client.list_all(STORAGE_CLASS, deadline=deadline).items

    def get(self, name: str) -> Obj:
        return self.conn.client.get(STORAGE_CLASS, name)

    def binding_mode(self, name: str) -> str:
        return str(self.get(name).get("volumeBindingMode") or "Immediate")

    @staticmethod
    def is_default(obj: Obj) -> bool:
        """DVP's default class, as the guest may take it (never a skipped one: dvp_common.parent_storage_classes)."""
        return default((obj.get("metadata") or {}).get("annotations"))

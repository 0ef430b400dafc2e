# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineClasses (cluster-scoped): only read."""

from __future__ import annotations

from ..kube.errors import NotFound
from .connection import DVPConnection
from .objects import Obj
from .resources import VIRTUAL_MACHINE_CLASS


class VirtualMachineClasses:
    def __init__(self, conn: DVPConnection) -> None:
        self.conn = conn

    def get(self, name: str) -> Obj:
        return self.conn.client.get(VIRTUAL_MACHINE_CLASS, name)

    def get_or_none(self, name: str) -> Obj | None:
        try:
            return self.get(name)
        except NotFound:
            return None

    def exists(self, name: str) -> bool:
        return self.get_or_none(name) is not None

    def list(self, deadline: float | None = None) -> list[Obj]:
        return self.conn.client.list_all(VIRTUAL_MACHINE_CLASS, deadline=deadline).items

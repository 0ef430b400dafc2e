# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""VirtualMachineClasses (cluster-scoped): only read."""

from __future__ import annotations

from ..kube.client import get_or_none
from .connection import DVPConnection
from .objects import Obj
from .resources import VIRTUAL_MACHINE_CLASS


class VirtualMachineClasses:
    def __init__(self, conn: DVPConnection) -> None:
        self.conn = conn

    def get(self, name: str) -> Obj:
        return self.conn.client.get(VIRTUAL_MACHINE_CLASS, name)

    def get_or_none(self, name: str) -> Obj | None:
        return get_or_none(self.conn.client, VIRTUAL_MACHINE_CLASS, name)

    def exists(self, name: str) -> bool:
        return self.get_or_none(name) is not None

    def list(self, deadline: float | None = None) -> list[Obj]:
        return self.conn.client.list_all(VIRTUAL_MACHINE_CLASS, deadline=deadline).items

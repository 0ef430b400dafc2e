# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The small interface the driver needs from DVP. Objects are plain Kubernetes dicts in the DVP namespace.

Adapters: kube.py (the real API through dvp_common.kube) and, in tests, an in-memory DVP.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any, Protocol

Obj = dict[str, Any]


class Kind(enum.Enum):
    VIRTUAL_DISK = "VirtualDisk"
    VIRTUAL_MACHINE = "VirtualMachine"
    VMBDA = "VirtualMachineBlockDeviceAttachment"
    VIRTUAL_DISK_SNAPSHOT = "VirtualDiskSnapshot"


class DvpError(Exception):
    """DVP answered with an error not covered below (message is one line, no secrets)."""


class DvpUnavailable(DvpError):
    """DVP cannot be reached."""


class DvpAlreadyExists(DvpError):
    pass


class DvpNotFound(DvpError):
    pass


class DvpQuotaExceeded(DvpError):
    pass


class DvpRefused(DvpError):
    """DVP's validators refused the object (403 admission webhook denial, 422 schema error): as written it will
    never be accepted; the message is DVP's."""


class WaitTimeout(DvpError):
    """A bounded wait ran out; carries the last object seen."""

    def __init__(self, message: str, last: Obj | None = None) -> None:
        super().__init__(message)
        self.last = last


class DvpApi(Protocol):
    def ping(self) -> None: ...

    def get(self, kind: Kind, name: str) -> Obj | None: ...

    def list(self, kind: Kind, labels: Mapping[str, str]) -> list[Obj]: ...

    def create(self, kind: Kind, body: Obj) -> Obj: ...

    def delete(self, kind: Kind, name: str) -> bool:
        """False when the object was already gone."""
        ...

    def patch(self, kind: Kind, name: str, merge_patch: Obj) -> Obj: ...

    def wait(self, kind: Kind, name: str, done: Callable[[Obj | None], bool], timeout: float) -> Obj | None:
        """Watch one object until done(obj or None when absent) holds; WaitTimeout after timeout seconds."""
        ...

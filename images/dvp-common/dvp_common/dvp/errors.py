# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The errors a DVP operation raises, in one place: the API's own (dvp_common.kube.errors, re-used: quota refusals
are kube.errors.QuotaExceeded), NotOurs (an object that exists but is not ours: treated as absent), and the terminal
outcomes a wait can end in."""

from __future__ import annotations

from ..kube.errors import ApiError, KubeError, QuotaExceeded
from . import conditions as D
from .ownership import NotOurs

__all__ = ["AttachmentFailed", "DuplicateObjects", "NotOurs", "OperationFailed", "ProvisioningFailed",
           "QuotaExceeded", "VMFailed", "terminal"]


class DVPFailure(KubeError):
    def __init__(self, kind: str, name: str, detail: str) -> None:
        self.kind, self.name, self.detail = kind, name, detail
        super().__init__(" ".join(f'{kind} "{name}": {detail}'.split()))


class ProvisioningFailed(DVPFailure):
    """A VirtualDisk (or snapshot, image) ended in Failed or a terminal Ready reason."""


class AttachmentFailed(DVPFailure):
    """A VMBDA ended in phase Failed."""


class VMFailed(DVPFailure):
    """A VirtualMachine ended in a phase we were told to treat as terminal (e.g. Degraded)."""


class OperationFailed(DVPFailure):
    """A VirtualMachineOperation ended in phase Failed."""


class DuplicateObjects(DVPFailure):
    """A label lookup that must find at most one object found several."""


def terminal(kind: str, name: str, namespace: str, reason: str, message: str) -> KubeError:
    """QuotaExceeded for quota reasons, ProvisioningFailed otherwise."""
    if reason == D.reason_of(D.VD_READY, "QuotaExceeded").value:
        err: ApiError = QuotaExceeded(message or reason, status=403, reason=reason, kind=kind, name=name,
                                      namespace=namespace, verb="wait")
        return err
    return ProvisioningFailed(kind, name, f"{reason}: {message}" if message else reason)

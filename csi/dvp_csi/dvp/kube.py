# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DvpApi on the real Kubernetes API of DVP, through dvp_common.kube (watch-based waits, retries with backoff)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from dvp_common import kube
from dvp_common.dvp import resources
from dvp_common.kube import config as kube_config

from .port import (
    DvpAlreadyExists,
    DvpError,
    DvpNotFound,
    DvpQuotaExceeded,
    DvpRefused,
    DvpUnavailable,
    Kind,
    Obj,
    WaitTimeout,
)

RESOURCES = {
    Kind.VIRTUAL_DISK: resources.VIRTUAL_DISK,
    Kind.VIRTUAL_MACHINE: resources.VIRTUAL_MACHINE,
    Kind.VMBDA: resources.VMBDA,
    Kind.VIRTUAL_DISK_SNAPSHOT: resources.VIRTUAL_DISK_SNAPSHOT,
}


def _translated(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except kube.AlreadyExists as exc:
            raise DvpAlreadyExists(str(exc)) from exc
        except kube.QuotaExceeded as exc:
            raise DvpQuotaExceeded(str(exc)) from exc
        except kube.NotFound as exc:
            raise DvpNotFound(str(exc)) from exc
        except (kube.AdmissionDenied, kube.Invalid) as exc:
            raise DvpRefused(str(exc)) from exc
        except kube.Transient as exc:
            raise DvpUnavailable(str(exc)) from exc
        except kube.WaitTimeout as exc:
            raise WaitTimeout(str(exc)) from exc
        except kube.KubeError as exc:
            raise DvpError(str(exc)) from exc

    return wrapper


class KubeDvp:
    def __init__(self, client: kube.KubeClient, namespace: str) -> None:
        self.client = client
        self.namespace = namespace

    @classmethod
    def from_kubeconfig(cls, kubeconfig_base64: str, namespace: str) -> KubeDvp:
        """`kubeconfig_base64`: DVP_KUBERNETES_CONFIG_BASE64 as the pod gets it (the one kubeconfig rule judges it)."""
        return cls(kube.KubeClient.from_credentials(kube_config.from_kubeconfig_base64(kubeconfig_base64)), namespace)

    @_translated
    def ping(self) -> None:
        self.client.list(RESOURCES[Kind.VIRTUAL_DISK], self.namespace, limit=1)

    @_translated
    def get(self, kind: Kind, name: str) -> Obj | None:
        return kube.get_or_none(self.client, RESOURCES[kind], name, self.namespace)

    @_translated
    def list(self, kind: Kind, labels: Mapping[str, str]) -> list[Obj]:
        return self.client.list_all(RESOURCES[kind], self.namespace, label_selector=dict(labels)).items

    @_translated
    def create(self, kind: Kind, body: Obj) -> Obj:
        return self.client.create(RESOURCES[kind], body, self.namespace)

    @_translated
    def delete(self, kind: Kind, name: str) -> bool:
        return self.client.delete(RESOURCES[kind], name, self.namespace, missing_ok=True) is not None

    @_translated
    def patch(self, kind: Kind, name: str, merge_patch: Obj) -> Obj:
        return self.client.patch(RESOURCES[kind], name, merge_patch, self.namespace)

    @_translated
    def wait(self, kind: Kind, name: str, done: Callable[[Obj | None], bool], timeout: float) -> Obj | None:
        return self.client.wait_for(RESOURCES[kind], name, done, timeout, self.namespace)

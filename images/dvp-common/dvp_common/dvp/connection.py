# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A connection to DVP: a KubeClient bound to the project namespace and to our cluster UUID."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import kubeconfig
from ..kube.client import KubeClient
from ..kube.errors import ConfigError

ENV_KUBECONFIG = "DVP_KUBERNETES_CONFIG_BASE64"
ENV_NAMESPACE = "DVP_NAMESPACE"
ENV_CLUSTER_UUID = "CLUSTER_UUID"


@dataclass(frozen=True)
class DVPSettings:
    kubeconfig: str = field(repr=False)  # the kubeconfig's YAML text, decoded from the variable's base64
    namespace: str
    cluster_uuid: str

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> DVPSettings:
        env = os.environ if env is None else env
        missing = [k for k in (ENV_KUBECONFIG, ENV_NAMESPACE, ENV_CLUSTER_UUID) if not (env.get(k) or "").strip()]
        if missing:
            raise ConfigError(f"DVP settings: {', '.join(missing)} not set")
        try:
            text = kubeconfig.decode_base64(env[ENV_KUBECONFIG])
        except kubeconfig.KubeconfigInvalid as exc:
            raise ConfigError(f"DVP settings: {ENV_KUBECONFIG} {exc.reason}") from None
        return cls(text, env[ENV_NAMESPACE].strip(), env[ENV_CLUSTER_UUID].strip())


class DVPConnection:
    """Everything DVP-side goes through here; namespaced objects always live in `namespace`."""

    def __init__(self, client: KubeClient, namespace: str, cluster_uuid: str) -> None:
        if not namespace:
            raise ConfigError("DVP connection: namespace is empty")
        if not cluster_uuid:
            raise ConfigError("DVP connection: cluster UUID is empty")
        self.client, self.namespace, self.cluster_uuid = client, namespace, cluster_uuid

    @classmethod
    def from_settings(cls, settings: DVPSettings, **client_kwargs: Any) -> DVPConnection:
        return cls(KubeClient.from_kubeconfig(settings.kubeconfig, **client_kwargs), settings.namespace,
                   settings.cluster_uuid)

    @classmethod
    def from_kubeconfig(cls, kubeconfig: str | bytes, namespace: str, cluster_uuid: str,
                        **client_kwargs: Any) -> DVPConnection:
        return cls(KubeClient.from_kubeconfig(kubeconfig, **client_kwargs), namespace, cluster_uuid)

    @classmethod
    def from_token(cls, host: str, token: str, ca_data: str | bytes | None, namespace: str, cluster_uuid: str,
                   **client_kwargs: Any) -> DVPConnection:
        return cls(KubeClient.from_url(host, token=token, ca_data=ca_data, **client_kwargs), namespace,
                   cluster_uuid)

    def close(self) -> None:
        self.client.close()

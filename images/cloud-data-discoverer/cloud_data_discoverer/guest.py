# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The guest side: read the starting discovery data and PVs, write the discovery Secret and the conditions
ConfigMap. Writes are create-or-update, skipped when nothing changed, retried with capped backoff."""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from dvp_common.kube import AlreadyExists, KubeClient, KubeError, NotFound
from dvp_common.kube.resources import CONFIG_MAP, PERSISTENT_VOLUME, SECRET

NAMESPACE = "kube-system"
CLUSTER_CONFIGURATION = "d8-provider-cluster-configuration"
CLUSTER_CONFIGURATION_KEY = "cloud-provider-discovery-data.json"
DISCOVERY_SECRET = "d8-cloud-provider-discovery-data"  # noqa: S105 - a Secret name, not a secret
DISCOVERY_KEY = "discovery-data.json"
CONDITIONS_CONFIG_MAP = "d8-cloud-provider-conditions"
CONDITIONS_KEY = "conditions"
LABELS = {"heritage": "deckhouse", "module": "cloud-provider-dvp"}

log = logging.getLogger("cloud_data_discoverer")
T = TypeVar("T")


class WriteGaveUp(RuntimeError):
    """Every attempt to write failed; the message names the object."""


class Guest:
    def __init__(self, client: KubeClient, attempts: int = 15, backoff: float = 3.0, cap: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep, namespace: str = NAMESPACE) -> None:
        self.client, self.attempts, self.backoff, self.cap, self.sleep = client, attempts, backoff, cap, sleep
        self.namespace = namespace  # kube-system; tests use their own

    def starting_data(self) -> str | None:
        """The installer's discovery data; the Secret or the key may be absent."""
        try:
            secret = self.client.get(SECRET, CLUSTER_CONFIGURATION, self.namespace)
        except NotFound:
            return None
        raw = (secret.get("data") or {}).get(CLUSTER_CONFIGURATION_KEY)
        return base64.b64decode(raw).decode() if raw else None

    def current_discovery(self) -> str | None:
        try:
            secret = self.client.get(SECRET, DISCOVERY_SECRET, self.namespace)
        except NotFound:
            return None
        raw = (secret.get("data") or {}).get(DISCOVERY_KEY)
        return base64.b64decode(raw).decode() if raw else None

    def persistent_volumes(self) -> list[dict[str, Any]]:
        return self.client.list_all(PERSISTENT_VOLUME).items

    def write_discovery(self, text: str) -> bool:
        data = {DISCOVERY_KEY: base64.b64encode(text.encode()).decode()}
        body = {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                "metadata": {"name": DISCOVERY_SECRET, "namespace": self.namespace, "labels": dict(LABELS)},
                "data": data}
        return self._retrying(f'Secret "{self.namespace}/{DISCOVERY_SECRET}"', lambda: self._upsert(SECRET, body))

    def write_conditions(self, text: str) -> bool:
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": CONDITIONS_CONFIG_MAP, "namespace": self.namespace, "labels": dict(LABELS)},
                "data": {CONDITIONS_KEY: text}}
        return self._retrying(f'ConfigMap "{self.namespace}/{CONDITIONS_CONFIG_MAP}"',
                              lambda: self._upsert(CONFIG_MAP, body))

    def current_conditions(self) -> str | None:
        try:
            return (self.client.get(CONFIG_MAP, CONDITIONS_CONFIG_MAP, self.namespace).get("data") or {}).get(
                CONDITIONS_KEY)
        except NotFound:
            return None

    def _upsert(self, res: Any, body: dict[str, Any]) -> bool:
        """True when something was written. Update carries the read resourceVersion: a concurrent writer
        makes it Conflict, and the retry re-reads."""
        name = body["metadata"]["name"]
        try:
            current = self.client.get(res, name, self.namespace)
        except NotFound:
            try:
                self.client.create(res, body, self.namespace)
                return True
            except AlreadyExists:
                current = self.client.get(res, name, self.namespace)
        labels = (current.get("metadata") or {}).get("labels") or {}
        if current.get("data") == body["data"] and all(labels.get(k) == v for k, v in LABELS.items()):
            return False
        updated = dict(current)
        updated["data"] = body["data"]
        updated["metadata"] = {**current["metadata"], "labels": {**labels, **LABELS}}
        self.client.replace(res, updated, self.namespace)
        return True

    def _retrying(self, what: str, op: Callable[[], T]) -> T:
        delay = self.backoff
        for attempt in range(1, self.attempts + 1):
            try:
                return op()
            except KubeError as exc:
                if attempt == self.attempts:
                    raise WriteGaveUp(f"{what}: gave up after {attempt} attempts: {exc}") from None
                log.warning("%s: attempt %d failed (%s), retrying in %.1fs", what, attempt, exc, delay)
                self.sleep(delay)
                delay = min(delay * 2, self.cap)
        raise AssertionError("unreachable")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The guest side: read the starting discovery data and PVs, write the discovery Secret, the conditions
ConfigMap and node-manager's InstanceTypesCatalog. Writes are create-or-update, skipped when nothing changed,
retried with capped backoff when the failure may pass (a refusal that no repeat changes, such as 422 or 403, is
not retried), and never larger than a Secret may be."""

from __future__ import annotations

import base64
import binascii
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from dvp_common.kube import AlreadyExists, ApiError, KubeClient, KubeError, NotFound, Resource, get_or_none
from dvp_common.kube.resources import CONFIG_MAP, PERSISTENT_VOLUME, SECRET

from .domain import catalog
from .domain.discovery import InvalidDiscoveryData

NAMESPACE = "kube-system"
CLUSTER_CONFIGURATION = "d8-provider-cluster-configuration"
CLUSTER_CONFIGURATION_KEY = "cloud-provider-discovery-data.json"
DISCOVERY_SECRET = "d8-cloud-provider-discovery-data"  # noqa: S105 - a Secret name, not a secret
DISCOVERY_KEY = "discovery-data.json"
VANISHED_KEY = "vanished-storage-classes.json"  # when each class was first missed in DVP (ours only)
# The API server refuses a Secret over 1 MiB; the margin leaves room for metadata and managedFields.
MAX_SECRET_DATA = 1024 * 1024 - 64 * 1024
# Statuses no repeat changes within a round (bad request, forbidden, missing, invalid, too large).
PERMANENT = frozenset({400, 403, 404, 405, 413, 415, 422})
CONDITIONS_CONFIG_MAP = "d8-cloud-provider-conditions"
CONDITIONS_KEY = "conditions"
LABELS = {"heritage": "deckhouse", "module": "cloud-provider-dvp"}
# node-manager owns the CRD; the guest serves the kind only where node-manager is enabled.
INSTANCE_TYPES_CATALOG = Resource("deckhouse.io", "v1alpha1", "instancetypescatalogs", catalog.KIND,
                                  namespaced=False)
# What write_catalog found.
CREATED, UPDATED, UNCHANGED, NOT_SERVED, FOREIGN = "created", "updated", "unchanged", "not served", "foreign"

log = logging.getLogger("cloud_data_discoverer")
T = TypeVar("T")


class WriteGaveUp(RuntimeError):
    """Every attempt to write failed; the message names the object."""


class WriteRefused(RuntimeError):
    """The write cannot succeed as it is (the API refused it for good, or it is too large); a restart would not
    help either. The message names the object."""


def _key(secret: dict, key: str) -> str | None:
    data = secret.get("data") if isinstance(secret, dict) else None
    raw = data.get(key) if isinstance(data, dict) else None
    if raw is None or raw == "":
        return None
    try:
        return base64.b64decode(str(raw), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):  # UnicodeDecodeError is a ValueError
        raise InvalidDiscoveryData(f"key {key} is not base64 of UTF-8 text") from None


class Guest:
    def __init__(self, client: KubeClient, attempts: int = 15, backoff: float = 3.0, cap: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep, namespace: str = NAMESPACE,
                 catalog_name: str = catalog.NAME) -> None:
        self.client, self.attempts, self.backoff, self.cap, self.sleep = client, attempts, backoff, cap, sleep
        self.namespace = namespace  # kube-system; tests use their own
        self.catalog_name = catalog_name  # node-manager reads only this one; tests use their own

    def starting_data(self) -> str | None:
        """The installer's discovery data; the Secret or the key may be absent. InvalidDiscoveryData when
        it is not base64 of UTF-8 text."""
        secret = get_or_none(self.client, SECRET, CLUSTER_CONFIGURATION, self.namespace)
        return None if secret is None else _key(secret, CLUSTER_CONFIGURATION_KEY)

    def current_discovery(self) -> tuple[str | None, str | None]:
        """What we wrote last: (the discovery data, the vanished-classes record); unreadable parts are None."""
        secret = get_or_none(self.client, SECRET, DISCOVERY_SECRET, self.namespace)
        if secret is None:
            return None, None
        out = []
        for key in (DISCOVERY_KEY, VANISHED_KEY):
            try:
                out.append(_key(secret, key))
            except InvalidDiscoveryData as exc:  # ours, edited by hand: rebuilt from the installer's data and DVP
                log.warning('Secret "%s/%s": %s: rebuilt', self.namespace, DISCOVERY_SECRET, exc)
                out.append(None)
        return out[0], out[1]

    def persistent_volumes(self) -> list[dict[str, Any]]:
        return self.client.list_all(PERSISTENT_VOLUME).items

    def write_discovery(self, text: str, vanished: str = "{}") -> bool:
        what = f'Secret "{self.namespace}/{DISCOVERY_SECRET}"'
        data = {DISCOVERY_KEY: base64.b64encode(text.encode()).decode(),
                VANISHED_KEY: base64.b64encode(vanished.encode()).decode()}
        size = sum(len(k) + len(v) for k, v in data.items())
        if size > MAX_SECRET_DATA:
            raise WriteRefused(f"{what}: the discovery data would take {size} bytes, over the "
                               f"{MAX_SECRET_DATA} a Secret can safely hold; the last written data is kept")
        body = {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                "metadata": {"name": DISCOVERY_SECRET, "namespace": self.namespace, "labels": dict(LABELS)},
                "data": data}
        return self._retrying(what, lambda: self._upsert(SECRET, body))

    def write_conditions(self, text: str) -> bool:
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": CONDITIONS_CONFIG_MAP, "namespace": self.namespace, "labels": dict(LABELS)},
                "data": {CONDITIONS_KEY: text}}
        return self._retrying(f'ConfigMap "{self.namespace}/{CONDITIONS_CONFIG_MAP}"',
                              lambda: self._upsert(CONFIG_MAP, body))

    def write_catalog(self, instance_types: list[dict[str, str]]) -> str:
        """CREATED, UPDATED or UNCHANGED; NOT_SERVED when the guest has no such kind; FOREIGN when the object
        exists without our labels (someone else's: left alone)."""
        return self._retrying(f'{catalog.KIND} "{self.catalog_name}"', lambda: self._upsert_catalog(instance_types))

    def _upsert_catalog(self, instance_types: list[dict[str, str]]) -> str:
        res, name = INSTANCE_TYPES_CATALOG, self.catalog_name
        try:
            current = self.client.get(res, name)
        except NotFound:
            if not self.client.served(res):
                return NOT_SERVED
            body = {"apiVersion": catalog.API_VERSION, "kind": catalog.KIND,
                    "metadata": {"name": name, "labels": dict(LABELS)}, "instanceTypes": instance_types}
            try:
                self.client.create(res, body)
                return CREATED
            except AlreadyExists:
                current = self.client.get(res, name)
        labels = (current.get("metadata") or {}).get("labels") or {}
        if any(labels.get(k) != v for k, v in LABELS.items()):
            return FOREIGN
        if catalog.same(current.get("instanceTypes"), instance_types):
            return UNCHANGED
        # The read metadata goes back as it was: its resourceVersion and uid make the update conditional.
        self.client.replace(res, {**current, "instanceTypes": instance_types})
        return UPDATED

    def current_conditions(self) -> str | None:
        found = get_or_none(self.client, CONFIG_MAP, CONDITIONS_CONFIG_MAP, self.namespace)
        return None if found is None else (found.get("data") or {}).get(CONDITIONS_KEY)

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
                if isinstance(exc, ApiError) and exc.status in PERMANENT:
                    raise WriteRefused(f"{what}: refused, not retried: {exc}") from None
                if attempt == self.attempts:
                    raise WriteGaveUp(f"{what}: gave up after {attempt} attempts: {exc}") from None
                log.warning("%s: attempt %d failed (%s), retrying in %.1fs", what, attempt, exc, delay)
                self.sleep(delay)
                delay = min(delay * 2, self.cap)
        raise AssertionError("unreachable")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVPCloudDiscoveryData merge (research dvp-api.md §e, newest upstream rules).

Discovered DVP classes replace their entries; classes no longer in DVP are kept as they were (a guest
StorageClass may still point at one); the list is sorted by name; `isDefault` comes only from the DVP
default annotations and never lands on a skipped class. Fields are omitempty as upstream writes them.
"""

from __future__ import annotations

import json
from typing import Any

API_VERSION = "deckhouse.io/v1"
KIND = "DVPCloudDiscoveryData"
DEFAULT_ZONES = ["default"]
DEFAULT_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class",
)
SKIP_ANNOTATION = "cloud-provider.deckhouse.io/skip-storage-class"


class InvalidDiscoveryData(ValueError):
    """The starting discovery data is not a JSON object."""


def _annotations(obj: dict[str, Any]) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("annotations") or {}


def _true(value: Any) -> bool:
    return str(value).strip().lower() == "true"


def storage_class_entry(sc: dict[str, Any]) -> dict[str, Any]:
    """One discovered DVP StorageClass as a discovery entry (omitempty: false values left out)."""
    ann = _annotations(sc)
    enabled = not _true(ann.get(SKIP_ANNOTATION, ""))
    entry: dict[str, Any] = {
        "name": sc["metadata"]["name"],
        # The guest class binds on first consumer always: the disk must land where the VM runs.
        "volumeBindingMode": "WaitForFirstConsumer",
        "reclaimPolicy": sc.get("reclaimPolicy") or "Delete",
    }
    if sc.get("allowVolumeExpansion"):
        entry["allowVolumeExpansion"] = True
    if enabled:
        entry["isEnabled"] = True
    if enabled and any(_true(ann.get(k, "")) for k in DEFAULT_ANNOTATIONS):
        entry["isDefault"] = True
    return entry


def parse(text: str | None) -> dict[str, Any]:
    """The starting data (the cluster configuration's key, possibly absent or empty)."""
    if not text or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidDiscoveryData(f"discovery data is not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise InvalidDiscoveryData("discovery data is not a JSON object")
    return data


def base(installer: dict[str, Any], last_written: dict[str, Any]) -> dict[str, Any]:
    """The starting point of a round: the installer's data (its layout and zones may change on converge), with
    the classes we wrote last laid over its own, so a class that vanished after installation is kept too."""
    data = dict(installer or last_written)
    classes = {c["name"]: c for c in installer.get("storageClasses") or [] if isinstance(c, dict) and c.get("name")}
    classes.update({c["name"]: c for c in last_written.get("storageClasses") or []
                    if isinstance(c, dict) and c.get("name")})
    if classes:
        data["storageClasses"] = list(classes.values())
    return data


def merge(previous: dict[str, Any], dvp_classes: list[dict[str, Any]]) -> dict[str, Any]:
    data = dict(previous)
    data["apiVersion"] = data.get("apiVersion") or API_VERSION
    data["kind"] = data.get("kind") or KIND
    data["zones"] = list(data.get("zones") or DEFAULT_ZONES)
    entries: dict[str, dict[str, Any]] = {}
    for old in data.get("storageClasses") or []:
        if isinstance(old, dict) and old.get("name"):
            kept = dict(old)
            kept.pop("isDefault", None)  # only a discovered class can be default
            entries[old["name"]] = kept
    for sc in dvp_classes:
        entry = storage_class_entry(sc)
        entries[entry["name"]] = entry
    data["storageClasses"] = [entries[name] for name in sorted(entries)]
    return data


def render(data: dict[str, Any]) -> str:
    """Stable text: an unchanged picture gives identical bytes (no needless Secret updates)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVPCloudDiscoveryData merge (upstream's newest rules), and its bounds.

Discovered DVP classes replace their entries; a class no longer in DVP is kept as it was (a guest StorageClass
may still point at one) for a grace period from when it was first missed, then dropped; the list is sorted by
name; `isDefault` comes only from the DVP default annotations and never lands on a skipped class. Fields are
omitempty as upstream writes them. What we publish is what the module's schema
(candi/openapi/cloud_discovery_data.yaml) accepts: anything else in the installer's data is dropped, by name of
the field, and said.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from dvp_common import parent_storage_classes as parent
from dvp_common.rfc3339 import format_time, parse_time_or_none

from . import shapes
from .shapes import Malformed, Skipped

API_VERSION = "deckhouse.io/v1"
KIND = "DVPCloudDiscoveryData"
DEFAULT_ZONES = ["default"]
LAYOUTS = ("Standard",)
BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
RECLAIM_POLICIES = ("Delete", "Retain")
ENTRY_FLAGS = ("allowVolumeExpansion", "isEnabled", "isDefault")
MAX_ZONES = 64
MAX_DEPTH = 32  # the schema's documents are 4 levels deep; deeper JSON is refused before it is walked


class InvalidDiscoveryData(ValueError):
    """The starting discovery data is not a JSON object."""


def storage_class_entry(sc: Any) -> dict[str, Any]:
    """One discovered DVP StorageClass as a discovery entry (omitempty: false values left out); Malformed
    names the field that keeps it out."""
    name = shapes.name(sc)
    ann = shapes.string_map(shapes.metadata(sc).get("annotations"), "metadata.annotations")
    reclaim = shapes.text(sc.get("reclaimPolicy"), "reclaimPolicy", RECLAIM_POLICIES)
    expand = shapes.flag(sc.get("allowVolumeExpansion"), "allowVolumeExpansion")
    enabled = not parent.skipped(ann)
    entry: dict[str, Any] = {
        "name": name,
        # The guest class binds on first consumer always: the disk must land where the VM runs.
        "volumeBindingMode": "WaitForFirstConsumer",
        "reclaimPolicy": reclaim or "Delete",
    }
    if expand:
        entry["allowVolumeExpansion"] = True
    if enabled:
        entry["isEnabled"] = True
    if parent.default(ann):
        entry["isDefault"] = True
    return entry


def _depth(value: Any, limit: int) -> bool:
    """True when `value` nests no deeper than `limit` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            if level > limit:
                return False
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return True


def parse(text: str | None) -> dict[str, Any]:
    """The starting data (the cluster configuration's key, possibly absent or empty)."""
    if not text or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except RecursionError:
        raise InvalidDiscoveryData("discovery data is nested too deep") from None
    except ValueError as exc:
        raise InvalidDiscoveryData(f"discovery data is not JSON: {getattr(exc, 'msg', 'unreadable')}") from None
    if not isinstance(data, dict):
        raise InvalidDiscoveryData("discovery data is not a JSON object")
    if not _depth(data, MAX_DEPTH):
        raise InvalidDiscoveryData("discovery data is nested too deep")
    return data


def _entry(value: Any) -> dict[str, Any]:
    """A stored entry as the schema has it (the caller reports fields it does not know)."""
    if not isinstance(value, dict):
        raise Malformed("not an object")
    if not shapes.is_name(value.get("name")):
        raise Malformed("name missing or not a DNS-1123 name")
    entry: dict[str, Any] = {"name": value["name"]}
    for field, choices in (("volumeBindingMode", BINDING_MODES), ("reclaimPolicy", RECLAIM_POLICIES)):
        if shapes.text(value.get(field), field, choices) is not None:
            entry[field] = value[field]
    for field in ENTRY_FLAGS:
        if shapes.flag(value.get(field), field):
            entry[field] = True
    return entry


def sanitize(data: dict[str, Any], kind: str, title: str) -> tuple[dict[str, Any], list[Skipped]]:
    """The document restricted to what the schema accepts; each dropped part is a Skipped naming its field."""
    out: dict[str, Any] = {}
    problems: list[Skipped] = []

    def drop(field: str, reason: str) -> None:
        problems.append(Skipped(kind, title, f"{field}: {reason} (dropped)"))

    for field, wanted in (("apiVersion", (API_VERSION,)), ("kind", (KIND,)), ("layout", LAYOUTS)):
        if field in data:
            if data[field] in wanted:
                out[field] = data[field]
            else:
                drop(field, f"not {' or '.join(wanted)}")
    if "zones" in data:
        zones = data["zones"]
        if (isinstance(zones, list) and 0 < len(zones) <= MAX_ZONES and len(set(map(repr, zones))) == len(zones)
                and all(shapes.is_label_value(z) for z in zones)):
            out["zones"] = list(zones)
        else:
            drop("zones", "not a list of distinct zone names")
    raw = data.get("storageClasses")
    if raw is not None and not isinstance(raw, list):
        drop("storageClasses", "not a list")
    elif raw:
        entries: dict[str, dict[str, Any]] = {}
        for i, value in enumerate(raw):
            try:
                entry = _entry(value)
            except Malformed as exc:
                drop(f"storageClasses[{i}]", str(exc))
                continue
            if set(value) - {"name", "volumeBindingMode", "reclaimPolicy", *ENTRY_FLAGS}:
                drop(f"storageClasses[{i}]", "fields the schema does not know")
            entries.setdefault(entry["name"], entry)
        out["storageClasses"] = list(entries.values())
    unknown = set(data) - {"apiVersion", "kind", "layout", "zones", "storageClasses"}
    if unknown:
        drop("the document", f"{len(unknown)} field(s) the schema does not know")
    return out, problems


def base(installer: dict[str, Any], last_written: dict[str, Any]) -> dict[str, Any]:
    """The starting point of a round (both sanitized): the installer's data (its layout and zones may change on
    converge), with the classes we wrote last laid over its own, so a class that vanished after installation is
    kept too."""
    data = dict(installer or last_written)
    classes = {c["name"]: c for c in installer.get("storageClasses") or []}
    classes.update({c["name"]: c for c in last_written.get("storageClasses") or []})
    if classes:
        data["storageClasses"] = list(classes.values())
    return data


def _since(value: Any, now: datetime.datetime) -> datetime.datetime:
    when = parse_time_or_none(value)
    return now if when is None else min(when, now)


def parse_vanished(text: str | None) -> dict[str, str]:
    """Our record of when each class was first missed in DVP; anything unreadable is forgotten (missed now)."""
    try:
        data = json.loads(text or "{}")
    except (ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if shapes.is_name(k) and isinstance(v, str)}


def expire(previous: dict[str, Any], present: set[str], vanished: dict[str, str], now: datetime.datetime,
           grace: float) -> tuple[dict[str, Any], dict[str, str]]:
    """`previous` without the classes missing from DVP for `grace` seconds or more, and the new record of
    when each missing class was first missed. The record keeps a dropped class while a source still lists it
    (the installer's data does not change), so it is not brought back; a class back in DVP leaves it."""
    kept, record = [], {}
    for entry in previous.get("storageClasses") or []:
        name = entry["name"]
        if name in present:
            kept.append(entry)
            continue
        since = _since(vanished.get(name), now)
        record[name] = format_time(since)
        if (now - since).total_seconds() < grace:
            kept.append(entry)
    data = dict(previous)
    if "storageClasses" in data:
        data["storageClasses"] = kept
    return data, record


def merge(previous: dict[str, Any], discovered: list[dict[str, Any]]) -> dict[str, Any]:
    """The previous (sanitized) data with the discovered entries laid over it."""
    data = dict(previous)
    data["apiVersion"] = data.get("apiVersion") or API_VERSION
    data["kind"] = data.get("kind") or KIND
    data["zones"] = list(data.get("zones") or DEFAULT_ZONES)
    entries: dict[str, dict[str, Any]] = {}
    for old in data.get("storageClasses") or []:
        kept = dict(old)
        kept.pop("isDefault", None)  # only a discovered class can be default
        entries[old["name"]] = kept
    for entry in discovered:
        entries[entry["name"]] = entry
    data["storageClasses"] = [entries[name] for name in sorted(entries)]
    return data


def render(data: Any) -> str:
    """Stable text: an unchanged picture gives identical bytes (no needless Secret updates)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Which StorageClasses the module publishes, from the parent's classes (pure functions)."""

from typing import NamedTuple  # not a dataclass: generating its methods costs every hook run at import

from lib import dvp
from lib.errors import InvalidInput

PROVISIONER = "csi.dvp.deckhouse.io"
# Disks are created by the node that first uses them: only then do we know the VM to attach to.
BINDING_MODE = "WaitForFirstConsumer"
IMMUTABLE = ("dvpStorageClass", "volumeBindingMode", "reclaimPolicy")
EXCLUDED_FIELD = "cloudProviderDvp.storage.parameters.excludedStorageClasses"


class Plan(NamedTuple):
    classes: list[dict]
    default: str | None
    recreate: list[str]  # existing classes whose immutable fields differ: deleted so Helm creates them anew


_KEPT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")
_DROP_KEPT = {ord(c): None for c in _KEPT}


def dns1123(name: str) -> str:
    name = name.lower().replace(" ", "-")
    if name.translate(_DROP_KEPT):  # a character outside [a-z0-9.-]: dropped (most names have none)
        name = "".join(c for c in name if c in _KEPT)
    return name.strip("-.")[:253]


def exclusion(patterns) -> list | None:
    """The compiled exclusion patterns (RE2, as Deckhouse validates them), each matching a whole name."""
    if not patterns:
        return None
    dvp.importable()
    from dvp_common import patterns as re2

    if not isinstance(patterns, list):
        raise InvalidInput("ModuleConfig cloud-provider-dvp", EXCLUDED_FIELD, "must be a list of regular expressions")
    compiled = []
    for i, p in enumerate(patterns):
        try:
            compiled.append(re2.compile(p))
        except re2.PatternError as exc:
            raise InvalidInput("ModuleConfig cloud-provider-dvp", f"{EXCLUDED_FIELD}[{i}]", str(exc)) from None
    return compiled


DISCOVERED_FIELD = "cloudProviderDvp.internal.providerDiscoveryData.storageClasses"
_TYPES = (("dvpStorageClass", str), ("volumeBindingMode", str), ("reclaimPolicy", str),
          ("allowVolumeExpansion", bool), ("isDefault", bool), ("isEnabled", bool))
_EXISTING_FIELDS = {"name": "metadata.name", "dvpStorageClass": "parameters.dvpStorageClass",
                    "isDefault": "metadata.annotations[storageclass.kubernetes.io/is-default-class]"}


def _first_mistyped(items) -> tuple[int, str | None, str, type] | None:
    """(index, name, field, type) of the first field plan() reads that has another type than it needs."""
    for i, sc in enumerate(items):
        if type(sc) is not dict or type(sc.get("name")) is not str:
            return i, None, "name", str
        for key, kind in _TYPES:
            x = sc.get(key)
            if x is not None and type(x) is not kind:
                return i, sc["name"], key, kind
    return None


def check_inputs(discovered, existing: list) -> None:
    """Every field plan() reads has its type (or is absent); else one line naming the first that has not."""
    if not isinstance(discovered, list):
        raise InvalidInput("values", DISCOVERED_FIELD, "must be a list")
    for items, is_discovered in ((discovered, True), (existing, False)):
        found = _first_mistyped(items)
        if found:
            i, name, key, kind = found
            obj = "values" if is_discovered else f"StorageClass {name if name is not None else '?'}"
            field = f"{DISCOVERED_FIELD}[{i}].{key}" if is_discovered else _EXISTING_FIELDS.get(key, key)
            raise InvalidInput(obj, field, f"must be a {'string' if kind is str else 'boolean'}")


def parent_rule():
    """dvp_common.parent_storage_classes, the rule the discoverer applies too (it imports only the standard
    library: the client library is not loaded)."""
    dvp.importable()
    from dvp_common import parent_storage_classes

    return parent_storage_classes


def plan(discovered: list[dict], patterns, existing: list[dict]) -> Plan:
    """discovered: providerDiscoveryData.storageClasses; existing: the module's StorageClasses in the cluster
    as the binding's filter gives them ({name, dvpStorageClass, volumeBindingMode, reclaimPolicy, ...})."""
    check_inputs(discovered, existing)
    excluded = exclusion(patterns)
    published = parent_rule().published
    # a parent the discovery lists as skipped is not for the guest, not even as a class kept from before
    skipped = {sc["name"] for sc in discovered if not published(sc)}

    def keep(parent: str, local: str) -> bool:
        return not excluded or not any(p.fullmatch(parent) or p.fullmatch(local) for p in excluded)

    wanted: dict[str, dict] = {}
    for sc in sorted(discovered, key=lambda s: s["name"]):
        local = dns1123(sc["name"])
        if not published(sc) or not local or local in wanted or not keep(sc["name"], local):
            continue
        wanted[local] = {
            "name": local,
            "dvpStorageClass": sc["name"],
            "volumeBindingMode": BINDING_MODE,
            "reclaimPolicy": sc.get("reclaimPolicy") or "Delete",
            "allowVolumeExpansion": bool(sc.get("allowVolumeExpansion", True)),
            "isDefault": bool(sc.get("isDefault", False)),
        }
    discovered_default = next((n for n in sorted(wanted) if wanted[n]["isDefault"]), None)
    # A class the parent stops reporting may still back volumes: keep publishing it as it is, the default
    # annotation included (values start empty after a restart: the cluster is the only memory of the default).
    kept_default = None
    for sc in sorted(existing, key=lambda s: s["name"]):
        if sc["name"] not in wanted and sc.get("dvpStorageClass") and sc["dvpStorageClass"] not in skipped \
                and keep(sc["dvpStorageClass"], sc["name"]):
            wanted[sc["name"]] = {
                "name": sc["name"],
                "dvpStorageClass": sc["dvpStorageClass"],
                "volumeBindingMode": BINDING_MODE,
                "reclaimPolicy": sc.get("reclaimPolicy") or "Delete",
                "allowVolumeExpansion": bool(sc.get("allowVolumeExpansion", False)),
                "isDefault": False,
            }
            if sc.get("isDefault") is True and kept_default is None:
                kept_default = sc["name"]
    classes = [wanted[n] for n in sorted(wanted)]
    default = discovered_default or kept_default
    for c in classes:
        c["isDefault"] = c["name"] == default
    current = {sc["name"]: sc for sc in existing}
    recreate = [c["name"] for c in classes
                if c["name"] in current and _immutable(current[c["name"]]) != _immutable(c)]
    return Plan(classes=classes, default=default, recreate=recreate)


def _immutable(sc: dict) -> tuple:
    return sc.get("dvpStorageClass"), sc.get("volumeBindingMode"), sc.get("reclaimPolicy")  # IMMUTABLE


def drift(expected: str | None, cluster_defaults: list[str], cluster_names: list[str]) -> dict | None:
    """Labels of the drift metric when the cluster's default StorageClass is not the expected one.

    An expected class the cluster does not hold yet (a fresh install: Helm creates it after this hook) is not a
    drift: the next run judges it."""
    actual = sorted(cluster_defaults)
    if not expected or actual == [expected] or expected not in cluster_names:
        return None
    return {"actual": ",".join(actual), "expected": expected}

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Each object from DVP or the guest is judged alone: a malformed one becomes a Skipped (which object, which
field) and the others go on. Messages name fields, never echo values: a value may be anything, even a secret.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from dvp_common.kube import names
from dvp_common.quantity import parse_quantity_or_none

# The metric label of a skipped object: a fixed set.
STORAGE_CLASS, VM_CLASS, QUOTA = "storage_class", "vm_class", "resource_quota"
DISK, VM, VMBDA, PV = "virtual_disk", "virtual_machine", "vmbda", "persistent_volume"
INSTALLER_DATA, DISCOVERY_DATA = "installer_data", "discovery_data"
KINDS = (STORAGE_CLASS, VM_CLASS, QUOTA, DISK, VM, VMBDA, PV, INSTALLER_DATA, DISCOVERY_DATA)

LABEL_VALUE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
UID = re.compile(r"[0-9A-Za-z-]{1,64}")


class Malformed(ValueError):
    """One line: the field and what is wrong with it."""


@dataclass(frozen=True)
class Skipped:
    kind: str  # one of KINDS
    ref: str  # 'StorageClass "fast"', or 'StorageClass #3' when the name itself is unusable
    reason: str


def is_name(value: Any) -> bool:
    """A DNS-1123 subdomain: the rule the API server applies to the names we read and publish."""
    return names.problem(value, names.SUBDOMAIN) is None


def is_label_value(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= 63 and LABEL_VALUE.fullmatch(value) is not None


def mapping(value: Any, field: str) -> dict[str, Any]:
    """An optional object: absent is empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Malformed(f"{field} is not an object")
    return value


def items(value: Any, field: str) -> list[Any]:
    """An optional list: absent is empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Malformed(f"{field} is not a list")
    return value


def text(value: Any, field: str, choices: Iterable[str] | None = None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or (choices is not None and value not in choices):
        raise Malformed(f"{field} is not {'one of ' + ', '.join(choices) if choices is not None else 'a string'}")
    return value


def flag(value: Any, field: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise Malformed(f"{field} is not a boolean")
    return value


def integer(value: Any, field: str, low: int = 0, high: int = 1 << 20) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Malformed(f"{field} is not an integer from {low} to {high}")
    return value


def quantity(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    if isinstance(value, str) and len(value) <= 64 and parse_quantity_or_none(value) is not None:
        return value
    raise Malformed(f"{field} is not a quantity")


def metadata(obj: Any) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise Malformed("the object is not a JSON object")
    return mapping(obj.get("metadata"), "metadata")


def name(obj: Any) -> str:
    value = metadata(obj).get("name")
    if not is_name(value):
        raise Malformed("metadata.name is missing or not a DNS-1123 name")
    return value


def name_or_none(obj: Any) -> str | None:
    try:
        return name(obj)
    except Malformed:
        return None


def string_map(value: Any, field: str) -> dict[str, str]:
    """labels, annotations: strings to strings."""
    out = mapping(value, field)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in out.items()):
        raise Malformed(f"{field} is not a map of strings")
    return out


def ref(title: str, obj: Any, index: int) -> str:
    found = name_or_none(obj)
    return f'{title} "{found}"' if found else f"{title} #{index} (no usable name)"


def judge[T](kind: str, title: str, objs: Iterable[Any], fn: Callable[[Any], T]) -> tuple[list[T], list[Skipped]]:
    """fn(obj) for each object; a malformed object is skipped, the others go on."""
    out: list[T] = []
    skipped: list[Skipped] = []
    for i, obj in enumerate(objs):
        try:
            out.append(fn(obj))
        except Malformed as exc:
            skipped.append(Skipped(kind, ref(title, obj, i), str(exc)))
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as exc:
            # A shape no rule above foresaw: still this object's problem only.
            skipped.append(Skipped(kind, ref(title, obj, i), f"unexpected shape ({type(exc).__name__})"))
    return out, skipped

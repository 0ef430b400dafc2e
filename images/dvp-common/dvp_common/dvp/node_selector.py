# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A DVPInstanceClass's `spec.virtualMachine.nodeSelector` in its two forms, and where each goes on the DVP
VirtualMachine (pure).

- A label map (`{key: value}`): the VM's `spec.nodeSelector`, as for a pod.
- A core NodeSelector (`{nodeSelectorTerms: [...]}`, the shape of Deckhouse's module's newest CRD): the VM's
  required node affinity, `spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`. DVP's VM
  takes a core NodeAffinity there and gives it to the VM's pod, so the terms mean what they mean for a pod: terms
  ORed, the requirements of one term ANDed.

Either form ANDs with the zone label the machine or layout adds to `spec.nodeSelector`. The checks are those
Kubernetes applies to a pod's node affinity, so DVP never gets a VM whose pod cannot be made. Every error is one
line starting with the field path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

TERMS = "nodeSelectorTerms"
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
FIELD_OPERATORS = ("In", "NotIn")
NODE_FIELDS = ("metadata.name",)  # the only node field a scheduler matches
_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_PREFIX = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_INTEGER = re.compile(r"^-?[0-9]+$")

Labels = tuple[tuple[str, str], ...]


class SelectorError(ValueError):
    """A bad node selector; the message starts with the field path."""


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"key": self.key, "operator": self.operator, **({"values": list(self.values)} if self.values else {})}


@dataclass(frozen=True)
class Term:
    expressions: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()

    def to_dict(self) -> dict:
        out: dict = {}
        if self.expressions:
            out["matchExpressions"] = [r.to_dict() for r in self.expressions]
        if self.fields:
            out["matchFields"] = [r.to_dict() for r in self.fields]
        return out


def label_key_problem(key: str) -> str | None:
    """Why `key` is not a label key (an optional DNS-subdomain prefix and a name of at most 63), or None."""
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or len(prefix) > 253 or not _PREFIX.match(prefix)):
        return f"{key!r} has a prefix that is not a DNS subdomain"
    if len(name) > 63 or not _NAME.match(name):
        return f"{key!r} is not a label key (a name of at most 63 of [A-Za-z0-9-_.], alphanumeric ends)"
    return None


def is_terms(value: Any) -> bool:
    """The core NodeSelector form (as opposed to a label map)."""
    return isinstance(value, dict) and TERMS in value


def parse_labels(value: Any, path: str) -> Labels:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise SelectorError(f"{path}: must be a map of label keys to values")
    for k, v in value.items():
        if not isinstance(v, str):
            raise SelectorError(f"{path}.{k}: must be a string, got {type(v).__name__}")
        bad = label_key_problem(str(k))
        if bad:
            raise SelectorError(f"{path}: {bad}")
    return tuple(sorted(value.items()))


def _strings(raw: Any, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise SelectorError(f"{where}: must be a list of strings")
    return tuple(raw)


def _requirement(raw: Any, where: str, field: bool) -> Requirement:
    if not isinstance(raw, dict):
        raise SelectorError(f"{where}: must be an object")
    key, op = raw.get("key"), raw.get("operator")
    if not isinstance(key, str) or not key:
        raise SelectorError(f"{where}.key: required")
    values = _strings(raw.get("values"), f"{where}.values")
    if field:
        if key not in NODE_FIELDS:
            raise SelectorError(f"{where}.key: {key!r} is not a node field; only {', '.join(NODE_FIELDS)} is")
        if op not in FIELD_OPERATORS:
            raise SelectorError(f"{where}.operator: {op!r} is not one of {', '.join(FIELD_OPERATORS)}")
        if len(values) != 1:
            raise SelectorError(f"{where}.values: must hold exactly one node name")
        return Requirement(key, op, values)
    bad = label_key_problem(key)
    if bad:
        raise SelectorError(f"{where}.key: {bad}")
    if op not in OPERATORS:
        raise SelectorError(f"{where}.operator: {op!r} is not one of {', '.join(OPERATORS)}")
    if op in ("In", "NotIn") and not values:
        raise SelectorError(f"{where}.values: must not be empty for operator {op}")
    if op in ("Exists", "DoesNotExist") and values:
        raise SelectorError(f"{where}.values: must be empty for operator {op}")
    if op in ("Gt", "Lt") and (len(values) != 1 or not _INTEGER.match(values[0])):
        raise SelectorError(f"{where}.values: must be one integer for operator {op}")
    return Requirement(key, op, values)


def parse_terms(value: Any, path: str) -> tuple[Term, ...]:
    """`value`: the list of node selector terms found at `path`."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SelectorError(f"{path}: must be a list of node selector terms")
    if not value:
        raise SelectorError(f"{path}: must hold at least one term")
    terms = []
    for i, raw in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(raw, dict):
            raise SelectorError(f"{where}: must be an object")
        parts = []
        for name, field in (("matchExpressions", False), ("matchFields", True)):
            items = raw.get(name) or []
            if not isinstance(items, list):
                raise SelectorError(f"{where}.{name}: must be a list")
            parts.append(tuple(_requirement(r, f"{where}.{name}[{j}]", field) for j, r in enumerate(items)))
        terms.append(Term(*parts))
    return tuple(terms)


def parse(value: Any, path: str) -> tuple[Labels, tuple[Term, ...]]:
    """Either form of the class's field: (labels, ()) or ((), terms)."""
    if not is_terms(value):
        return parse_labels(value, path), ()
    extra = sorted(k for k in value if k != TERMS)
    if extra:
        raise SelectorError(f"{path}: label keys ({', '.join(extra)}) next to {TERMS}; write them as "
                            f"matchExpressions (operator In) of every term, or use only the label map")
    return (), parse_terms(value[TERMS], f"{path}.{TERMS}")


def affinity(terms: tuple[Term, ...]) -> dict | None:
    """The VM's `spec.affinity` for the terms; None without terms."""
    if not terms:
        return None
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        TERMS: [t.to_dict() for t in terms]}}}

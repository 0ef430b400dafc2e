# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""NodeGroup and DVPInstanceClass rules.

- A CloudPermanent NodeGroup references a DVPInstanceClass by a non-empty name; so does any group whose
  classReference kind is DVPInstanceClass.
- A class used by NodeGroup "master" has an etcdDisk (master_etcd_disk_required); a class used by any other
  group has none (etcd_disk_forbidden_for_non_master). The class need not exist yet when a group names it.
- A class's VM labels and annotations are ones DVP accepts (dvp_common.dvp.labels.refused_metadata): DVP would
  refuse every VM made from the class.
- A class cannot be deleted while a NodeGroup references it or status.nodeGroupConsumers lists one
  (instance_class_in_use).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dvp_common.dvp import labels as L

from .review import Request
from .verdict import Verdict, classify

CLASS_KIND = "DVPInstanceClass"
MASTER = "master"
MASTER_ETCD_DISK_REQUIRED = "master_etcd_disk_required"
ETCD_DISK_FORBIDDEN = "etcd_disk_forbidden_for_non_master"
IN_USE = "instance_class_in_use"
CLASS_REF = f'{CLASS_KIND}.deckhouse.io'


def class_reference(ng: dict[str, Any]) -> dict[str, Any]:
    return ((ng.get("spec") or {}).get("cloudInstances") or {}).get("classReference") or {}


def has_etcd_disk(ic: dict[str, Any]) -> bool:
    return bool((ic.get("spec") or {}).get("etcdDisk"))


def users(ic_name: str, node_groups: Iterable[dict[str, Any]], ic: dict[str, Any] | None) -> set[str]:
    found = {ng["metadata"]["name"] for ng in node_groups
             if class_reference(ng).get("kind") == CLASS_KIND and class_reference(ng).get("name") == ic_name}
    found |= set(((ic or {}).get("status") or {}).get("nodeGroupConsumers") or [])
    return found


def _etcd_problems(ref: str, ic_name: str, ic: dict[str, Any], groups: set[str]) -> list[str]:
    out = []
    if MASTER in groups and not has_etcd_disk(ic):
        out.append(f'{ref}: {CLASS_REF} "{ic_name}" is used by NodeGroup "master" and needs spec.etcdDisk '
                   f"({MASTER_ETCD_DISK_REQUIRED})")
    others = sorted(groups - {MASTER})
    if others and has_etcd_disk(ic):
        out.append(f'{ref}: {CLASS_REF} "{ic_name}" has spec.etcdDisk but is used by NodeGroup '
                   f'{", ".join(others)}; only "master" may have an etcd disk ({ETCD_DISK_FORBIDDEN})')
    return out


def node_group_problems(req: Request, ng: dict[str, Any], ic: dict[str, Any] | None) -> list[str]:
    ref, spec = req.ref(), ng.get("spec") or {}
    cref = class_reference(ng)
    out = []
    if spec.get("nodeType") == "CloudPermanent" and cref.get("kind") != CLASS_KIND:
        out.append(f"{ref}: spec.cloudInstances.classReference.kind must be {CLASS_KIND} for a CloudPermanent "
                   f"group, got {cref.get('kind')!r}")
    if cref.get("kind") == CLASS_KIND and not cref.get("name"):
        out.append(f"{ref}: spec.cloudInstances.classReference.name is required")
    if cref.get("kind") == CLASS_KIND and cref.get("name") and ic is not None:
        out += _etcd_problems(ref, cref["name"], ic, {(ng.get("metadata") or {}).get("name", "")})
    return out


def validate_node_group(req: Request, ic: dict[str, Any] | None, old_ic: dict[str, Any] | None) -> Verdict:
    """`ic`: the class the new object names (None: absent); `old_ic`: the one the old object named."""
    ng = req.obj or {}
    cref = class_reference(ng)
    if (ng.get("spec") or {}).get("nodeType") != "CloudPermanent" and cref.get("kind") != CLASS_KIND:
        return Verdict.allow()
    old = node_group_problems(req, req.old, old_ic) if req.old is not None else []
    verdict = classify(req, node_group_problems(req, ng, ic), old)
    if verdict.allowed and cref.get("kind") == CLASS_KIND and cref.get("name") and ic is None:
        return Verdict.allow(*verdict.warnings, f'{req.ref()}: {CLASS_REF} "{cref["name"]}" does not exist yet; '
                                                "machines are created once it does")
    return verdict


def _metadata_problems(ref: str, ic: dict[str, Any] | None) -> list[str]:
    vm = ((ic or {}).get("spec") or {}).get("virtualMachine") or {}
    out = []
    for field, label in (("additionalLabels", True), ("additionalAnnotations", False)):
        for key, value in sorted((vm.get(field) or {}).items()):
            refused = L.refused_metadata(str(key), str(value), label=label)
            if refused:
                out.append(f"{ref}: spec.virtualMachine.{field}: {refused}")
    return out


def validate_instance_class(req: Request, node_groups: list[dict[str, Any]]) -> Verdict:
    ic = req.current
    groups = users(req.name, node_groups, ic)
    if req.operation == "DELETE":
        if groups:
            return Verdict.deny(f"{req.ref()}: used by NodeGroup {', '.join(sorted(groups))}; move those groups to "
                                f"another class first ({IN_USE})")
        return Verdict.allow()
    old = (_etcd_problems(req.ref(), req.name, req.old, groups) + _metadata_problems(req.ref(), req.old)
           if req.old is not None else [])
    return classify(req, _etcd_problems(req.ref(), req.name, ic, groups) + _metadata_problems(req.ref(), ic), old)

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
- A new group's name fits every name and label value made from it (node_group_name_too_long): the group name
  itself is a label value (`node-group` on its machine templates, Deckhouse's node-group label on its nodes);
  a CloudPermanent group's node `<prefix>-<group>-<index>` is the VM name (DVP takes at most 63), the node name
  and the `dvp.deckhouse.io/hostname` label; the OpenTofu layouts name its disks after it, and a disk name is
  the `virtualDiskName` label value. Nothing is derived from a DVPInstanceClass name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dvp_common.admission.review import Request
from dvp_common.admission.verdict import Verdict, classify
from dvp_common.dvp import labels as L

CLASS_KIND = "DVPInstanceClass"
MASTER = "master"
MASTER_ETCD_DISK_REQUIRED = "master_etcd_disk_required"
ETCD_DISK_FORBIDDEN = "etcd_disk_forbidden_for_non_master"
IN_USE = "instance_class_in_use"
NAME_TOO_LONG = "node_group_name_too_long"
PERMANENT = "CloudPermanent"
# The largest node index a permanent group's names leave room for (two digits).
PERMANENT_INDEX_ROOM = 99
# What the OpenTofu layouts append to a permanent node's hostname for its disks and that must fit a label value:
# nothing, since the layouts cut a disk name over 63 characters to 56 and a hash of the whole name.
PERMANENT_DISK_SUFFIXES: tuple[str, ...] = ()
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


def derived_names(name: str, node_type: str | None, prefix: str = "") -> list[tuple[str, str]]:
    """(what, value): every name and label value made from a NodeGroup name that DVP or Kubernetes limits to 63
    characters. `prefix`: the cluster's cloud.prefix ("" when unknown: the check is then a lower bound)."""
    out = [("its node-group label value", name)]
    if node_type == PERMANENT:
        host = f"{prefix}-{name}-{PERMANENT_INDEX_ROOM}".lower()
        out.append((f"the VM and node name of node {PERMANENT_INDEX_ROOM}", host))
        out += [("a disk name (its virtualDiskName label value)", host + suffix)
                for suffix in PERMANENT_DISK_SUFFIXES]
    return out


def name_problems(ref: str, name: str, node_type: str | None, prefix: str = "") -> list[str]:
    too_long = [(what, value) for what, value in derived_names(name, node_type, prefix)
                if len(value) > L.MAX_LABEL_NAME]
    if not too_long:
        return []
    what, value = max(too_long, key=lambda wv: len(wv[1]))
    room = L.MAX_LABEL_NAME - (len(value) - len(name))
    return [f'{ref}: metadata.name makes {what} "{value}" of {len(value)} characters, over the {L.MAX_LABEL_NAME} '
            f"DVP and Kubernetes allow; use a name of at most {max(room, 0)} characters ({NAME_TOO_LONG})"]


def node_group_problems(req: Request, ng: dict[str, Any], ic: dict[str, Any] | None, prefix: str = "") -> list[str]:
    ref, spec = req.ref(), ng.get("spec") or {}
    cref = class_reference(ng)
    out = name_problems(ref, (ng.get("metadata") or {}).get("name", ""), spec.get("nodeType"), prefix)
    if spec.get("nodeType") == PERMANENT and cref.get("kind") != CLASS_KIND:
        out.append(f"{ref}: spec.cloudInstances.classReference.kind must be {CLASS_KIND} for a CloudPermanent "
                   f"group, got {cref.get('kind')!r}")
    if cref.get("kind") == CLASS_KIND and not cref.get("name"):
        out.append(f"{ref}: spec.cloudInstances.classReference.name is required")
    if cref.get("kind") == CLASS_KIND and cref.get("name") and ic is not None:
        out += _etcd_problems(ref, cref["name"], ic, {(ng.get("metadata") or {}).get("name", "")})
    return out


def validate_node_group(req: Request, ic: dict[str, Any] | None, old_ic: dict[str, Any] | None,
                        prefix: str = "") -> Verdict:
    """`ic`: the class the new object names (None: absent); `old_ic`: the one the old object named; `prefix`:
    the cluster's cloud.prefix ("" when unknown)."""
    ng = req.obj or {}
    cref = class_reference(ng)
    if (ng.get("spec") or {}).get("nodeType") != PERMANENT and cref.get("kind") != CLASS_KIND:
        return Verdict.allow()
    old = node_group_problems(req, req.old, old_ic, prefix) if req.old is not None else []
    verdict = classify(req, node_group_problems(req, ng, ic, prefix), old)
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

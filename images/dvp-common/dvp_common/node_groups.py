# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The NodeGroup and DVPInstanceClass rule, pure: the validation webhook and dhctl's validator both judge by it.

- A CloudPermanent NodeGroup references a DVPInstanceClass by a non-empty name; so does any group whose
  classReference kind is DVPInstanceClass.
- A class used by NodeGroup "master" has an etcdDisk (master_etcd_disk_required); a class used by any other
  group has none (etcd_disk_forbidden_for_non_master). The class need not exist yet when a group names it.
- A group's name fits every name and label value made from it (node_group_name_too_long): the group name
  itself is a label value (`node-group` on its machine templates, Deckhouse's node-group label on its nodes);
  a CloudPermanent group's node `<prefix>-<group>-<index>` is the VM name (DVP takes at most 63), the node name
  and the `dvp.deckhouse.io/hostname` label; the OpenTofu layouts name its disks after it, and a disk name is
  the `virtualDiskName` label value. Nothing is derived from a DVPInstanceClass name.
- A class holds only what this module can give a VM (class_problems, code instance_class_unsupported): what
  Deckhouse's module's CRD accepts and the DVP VirtualMachine API cannot carry is refused with what to write
  instead (the CRD says the same in its CEL rules), and its nodeSelector is one of its two forms
  (dvp_common.dvp.node_selector).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .dvp import labels as L
from .dvp import node_selector as N

CLASS_KIND = "DVPInstanceClass"
CLASS_REF = f"{CLASS_KIND}.deckhouse.io"
MASTER = "master"
PERMANENT = "CloudPermanent"
MASTER_ETCD_DISK_REQUIRED = "master_etcd_disk_required"
ETCD_DISK_FORBIDDEN = "etcd_disk_forbidden_for_non_master"
NAME_TOO_LONG = "node_group_name_too_long"
CLASS_UNSUPPORTED = "instance_class_unsupported"
# The CRD's CEL messages (crds/dvpinstanceclass.yaml), word for word.
VIRTUAL_DISK_IMAGE = ("kind: VirtualDisk cannot be a node image (DVP makes a disk only from an image or a snapshot, "
                      "and nodes cannot share one boot disk); make a VirtualImage from that disk "
                      "(dataSource.objectRef.kind: VirtualDisk) and set kind: VirtualImage and its name")
LIVE_MIGRATION = ("liveMigrationPolicy: Manual and Never are refused by DVP's VirtualMachine (its CRD takes "
                  "AlwaysSafe, PreferSafe, AlwaysForced, PreferForced); set one of those, or leave it out for "
                  "PreferForced")
GPUS = ("gpus: not supported by this module yet (DVP passes GPUs through VirtualMachine spec.gpus behind its GPU "
        "feature gate); remove spec.virtualMachine.gpus")
# The largest node index a permanent group's names leave room for (two digits).
PERMANENT_INDEX_ROOM = 99
# What the OpenTofu layouts append to a permanent node's hostname for its disks and that must fit a label value:
# nothing, since the layouts cut a disk name over 63 characters to 56 and a hash of the whole name.
PERMANENT_DISK_SUFFIXES: tuple[str, ...] = ()


def class_reference(ng: dict[str, Any]) -> dict[str, Any]:
    return ((ng.get("spec") or {}).get("cloudInstances") or {}).get("classReference") or {}


def names_a_class(ng: dict[str, Any]) -> bool:
    """The rule applies: a CloudPermanent group, or one whose classReference kind is DVPInstanceClass."""
    return (ng.get("spec") or {}).get("nodeType") == PERMANENT or class_reference(ng).get("kind") == CLASS_KIND


def has_etcd_disk(ic: dict[str, Any]) -> bool:
    return bool((ic.get("spec") or {}).get("etcdDisk"))


def users(ic_name: str, node_groups: Iterable[dict[str, Any]], ic: dict[str, Any] | None) -> set[str]:
    """The groups using a class: those naming it, and those its status.nodeGroupConsumers lists."""
    found = {ng["metadata"]["name"] for ng in node_groups
             if class_reference(ng).get("kind") == CLASS_KIND and class_reference(ng).get("name") == ic_name}
    found |= set(((ic or {}).get("status") or {}).get("nodeGroupConsumers") or [])
    return found


def reference_problems(ng: dict[str, Any]) -> list[tuple[str, str]]:
    """(classReference field, sentence) for each way the group's classReference breaks the rule."""
    cref = class_reference(ng)
    if (ng.get("spec") or {}).get("nodeType") == PERMANENT and cref.get("kind") != CLASS_KIND:
        return [("kind", f"spec.cloudInstances.classReference.kind must be {CLASS_KIND} for a CloudPermanent "
                         f"group, got {cref.get('kind')!r}")]
    if cref.get("kind") == CLASS_KIND and not cref.get("name"):
        return [("name", "spec.cloudInstances.classReference.name is required")]
    return []


def etcd_problems(what: str, ic_name: str, ic: dict[str, Any], groups: set[str]) -> list[tuple[str, str]]:
    """(code, sentence) for a class used by `groups`; `what` names the class's kind as the caller writes it."""
    out = []
    if MASTER in groups and not has_etcd_disk(ic):
        out.append((MASTER_ETCD_DISK_REQUIRED,
                    f'{what} "{ic_name}" is used by NodeGroup "master" and needs spec.etcdDisk'))
    others = sorted(groups - {MASTER})
    if others and has_etcd_disk(ic):
        out.append((ETCD_DISK_FORBIDDEN, f'{what} "{ic_name}" has spec.etcdDisk but is used by NodeGroup '
                                         f'{", ".join(others)}; only "master" may have an etcd disk'))
    return out


def class_problems(ic: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(field, sentence) for what a class asks and no VM made by this module can have; the sentence says what to
    write instead."""
    spec = (ic or {}).get("spec") or {}
    vm = spec.get("virtualMachine") if isinstance(spec.get("virtualMachine"), dict) else {}
    image = (spec.get("rootDisk") or {}).get("image") if isinstance(spec.get("rootDisk"), dict) else None
    out = []
    if isinstance(image, dict) and image.get("kind") == "VirtualDisk":
        out.append(("spec.rootDisk.image", VIRTUAL_DISK_IMAGE))
    if vm.get("gpus"):
        out.append(("spec.virtualMachine", GPUS))
    if vm.get("liveMigrationPolicy") in ("Manual", "Never"):
        out.append(("spec.virtualMachine", LIVE_MIGRATION))
    try:
        N.parse(vm.get("nodeSelector"), "spec.virtualMachine.nodeSelector")
    except N.SelectorError as exc:
        field, _, sentence = str(exc).partition(": ")
        out.append((field, sentence))
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


def name_problem(name: str, node_type: str | None, prefix: str = "") -> str | None:
    """The sentence when a name made from the group's is too long (the longest one), else None."""
    too_long = [(what, value) for what, value in derived_names(name, node_type, prefix)
                if len(value) > L.MAX_LABEL_NAME]
    if not too_long:
        return None
    what, value = max(too_long, key=lambda wv: len(wv[1]))
    room = L.MAX_LABEL_NAME - (len(value) - len(name))
    return (f'metadata.name makes {what} "{value}" of {len(value)} characters, over the {L.MAX_LABEL_NAME} DVP '
            f"and Kubernetes allow; use a name of at most {max(room, 0)} characters ({NAME_TOO_LONG})")

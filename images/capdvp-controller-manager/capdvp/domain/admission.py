# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Admission rules for DeckhouseMachine and DeckhouseMachineTemplate: (error or None) per request."""

from __future__ import annotations

import re
from collections.abc import Mapping

from capdvp.domain import names, updates
from capdvp.domain.machine_spec import SpecError, parse_spec

GROUP = "infrastructure.cluster.x-k8s.io"
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_PLACEMENT = {"additionalLabels": "labels", "additionalAnnotations": "annotations", "nodeSelector": "node_selector",
              "nodeSelectorTerms": "node_selector_terms", "priorityClassName": "priority_class",
              "tolerations": "tolerations"}


def _ref(kind: str, obj: Mapping) -> str:
    meta = obj.get("metadata") or {}
    return f'{kind}.{GROUP} "{meta.get("namespace", "")}/{meta.get("name", "")}"'


def _spec_without_status(obj: Mapping | None) -> dict:
    return dict((obj or {}).get("spec") or {})


def validate_template(operation: str, obj: Mapping, old: Mapping | None) -> str | None:
    ref = _ref("DeckhouseMachineTemplate", obj)
    if operation == "UPDATE" and old is not None and _spec_without_status(obj) != _spec_without_status(old):
        return f"{ref}: spec is immutable; create a new template and point the MachineDeployment at it"
    if operation in ("CREATE", "UPDATE"):
        try:
            parse_spec(((obj.get("spec") or {}).get("template") or {}).get("spec"), "spec.template.spec")
        except SpecError as exc:
            return f"{ref}: {exc}"
    return None


def _as_actual(spec) -> updates.Actual:
    return updates.Actual(
        vm_class=spec.vm_class, cores=spec.cores, core_fraction=spec.core_fraction, memory=spec.memory,
        bootloader=spec.bootloader, run_policy=spec.run_policy, live_migration_policy=spec.live_migration_policy,
        root_size=spec.root_disk_size, root_storage_class=spec.root_disk_storage_class, image=spec.image,
        additional_disks=spec.additional_disks)


def validate_machine(operation: str, obj: Mapping, old: Mapping | None) -> str | None:
    ref = _ref("DeckhouseMachine", obj)
    if operation not in ("CREATE", "UPDATE"):
        return None
    name = (obj.get("metadata") or {}).get("name") or ""
    if operation == "CREATE" and (len(name) > names.MAX_NAME or not _LABEL.match(name)):
        return f"{ref}: metadata.name must be a DNS label of at most {names.MAX_NAME} characters (it is the VM name)"
    try:
        spec = parse_spec(obj.get("spec"))
    except SpecError as exc:
        return f"{ref}: {exc}"
    pid = (obj.get("spec") or {}).get("providerID") or ""
    old_pid = ((old or {}).get("spec") or {}).get("providerID") or ""
    if pid and pid != names.provider_id(names.vm_name(name)):
        # A Machine may only ever own the VM made for it; pointing it at another VM is an adoption attempt.
        return f"{ref}: spec.providerID must be {names.provider_id(names.vm_name(name))!r} or empty, got {pid!r}"
    if operation == "UPDATE" and old is not None:
        if old_pid and pid != old_pid:
            return f"{ref}: spec.providerID is immutable once set"
        try:
            old_spec = parse_spec(old.get("spec"))
        except SpecError:
            return None  # an old object that no longer validates may be repaired
        plan = updates.classify(spec, spec.live_migration_policy, _as_actual(old_spec))
        changes = list(plan.changes) if plan.kind == updates.Kind.RECREATE else []
        # Placement is applied when the VM is created, never in place: a change would silently do nothing.
        changes += [f for f in _PLACEMENT if getattr(spec.placement, _PLACEMENT[f]) !=
                    getattr(old_spec.placement, _PLACEMENT[f])]
        if changes:
            return (f"{ref}: changing {', '.join(changes)} needs a new machine; "
                    "roll out a new DeckhouseMachineTemplate instead")
    return None

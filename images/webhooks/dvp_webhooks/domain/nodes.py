# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""NodeGroup and DVPInstanceClass admission: the rule is dvp_common.node_groups (dhctl's validator uses it too).

Here: how the webhook answers it (deny what a change breaks, warn about what the old object already broke), the
VM metadata a class may carry (dvp_common.dvp.labels.refused_metadata: DVP would refuse every VM made from the
class), what no VM of this module can have (dvp_common.node_groups.class_problems; for the nodeSelector the CRD
cannot see label keys next to nodeSelectorTerms, nor check the label map's values), and that a class cannot be
deleted while a NodeGroup references it or status.nodeGroupConsumers lists one (instance_class_in_use).
"""

from __future__ import annotations

from typing import Any

from dvp_common import node_groups as G
from dvp_common.admission.review import Request
from dvp_common.admission.verdict import Verdict, classify
from dvp_common.dvp import labels as L

IN_USE = "instance_class_in_use"


def _etcd_problems(ref: str, ic_name: str, ic: dict[str, Any], groups: set[str]) -> list[str]:
    return [f"{ref}: {sentence} ({code})" for code, sentence in G.etcd_problems(G.CLASS_REF, ic_name, ic, groups)]


def node_group_problems(req: Request, ng: dict[str, Any], ic: dict[str, Any] | None, prefix: str = "") -> list[str]:
    ref, spec = req.ref(), ng.get("spec") or {}
    cref = G.class_reference(ng)
    too_long = G.name_problem((ng.get("metadata") or {}).get("name", ""), spec.get("nodeType"), prefix)
    out = [f"{ref}: {too_long}"] if too_long else []
    out += [f"{ref}: {sentence}" for _, sentence in G.reference_problems(ng)]
    if cref.get("kind") == G.CLASS_KIND and cref.get("name") and ic is not None:
        out += _etcd_problems(ref, cref["name"], ic, {(ng.get("metadata") or {}).get("name", "")})
    return out


def validate_node_group(req: Request, ic: dict[str, Any] | None, old_ic: dict[str, Any] | None,
                        prefix: str = "") -> Verdict:
    """`ic`: the class the new object names (None: absent); `old_ic`: the one the old object named; `prefix`:
    the cluster's cloud.prefix ("" when unknown)."""
    ng = req.obj or {}
    cref = G.class_reference(ng)
    if not G.names_a_class(ng):
        return Verdict.allow()
    old = node_group_problems(req, req.old, old_ic, prefix) if req.old is not None else []
    verdict = classify(req, node_group_problems(req, ng, ic, prefix), old)
    if verdict.allowed and cref.get("kind") == G.CLASS_KIND and cref.get("name") and ic is None:
        return Verdict.allow(*verdict.warnings, f'{req.ref()}: {G.CLASS_REF} "{cref["name"]}" does not exist yet; '
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
    out += [f"{ref}: {field}: {sentence} ({G.CLASS_UNSUPPORTED})" for field, sentence in G.class_problems(ic)]
    return out


def validate_instance_class(req: Request, node_groups: list[dict[str, Any]]) -> Verdict:
    ic = req.current
    groups = G.users(req.name, node_groups, ic)
    if req.operation == "DELETE":
        if groups:
            return Verdict.deny(f"{req.ref()}: used by NodeGroup {', '.join(sorted(groups))}; move those groups to "
                                f"another class first ({IN_USE})")
        return Verdict.allow()
    old = (_etcd_problems(req.ref(), req.name, req.old, groups) + _metadata_problems(req.ref(), req.old)
           if req.old is not None else [])
    return classify(req, _etcd_problems(req.ref(), req.name, ic, groups) + _metadata_problems(req.ref(), ic), old)

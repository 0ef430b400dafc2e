# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Our hand-written DVP CRDs (sim/crds) carry at least every constraint DVP's real schema puts on the fields our
components, the layouts and users set, so an object the simulator accepts is one DVP accepts.

The Go module proxy serves DVP's API module (github.com/deckhouse/virtualization/api, pinned at v1.8.0 in
tools/upstream), and the CRDs of the kinds DVP generates are generated from it (sim.dvp_crds, tools/fetch-upstream):
those are DVP's own schema and need no facts. The kinds here DVP writes by hand, outside that module, and their Go
markers disagree with DVP's CRDs (memory.size, liveMigrationPolicy, userDataRef.kind), so their real schema is
written down as facts, read from DVP's `virtualization.deckhouse.io/v1alpha2` CRDs (storage version): per field its
type, enum, pattern, bounds and required children, and how many CEL (or oneOf) rules DVP checks on it. A fact holds
when our schema has the same type, the same enum, the same pattern, bounds at least as strict, every required child,
and at least as many rules. The contract's quoted rule messages are checked on the generated CRDs as well."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from sim.dvp_crds import dvp_crd_files

QUANTITY = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|"
            r"(\.[0-9]+))))?$")
DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
NAME = {"type": "string", "minLength": 1}
# metav1.Condition as DVP's CRDs write it: every field but observedGeneration required, DVP's reason pattern
CONDITION = {"type": "object", "required": ["lastTransitionTime", "message", "reason", "status", "type"]}
REASON = {"type": "string", "pattern": r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$", "minLength": 1,
          "maxLength": 1024}
CONDITIONS = {"status.conditions[]": CONDITION, "status.conditions[].reason": REASON,
              "status.conditions[].message": {"type": "string", "maxLength": 32768}}

FACTS: dict[str, dict[str, dict[str, Any]]] = {
    "virtualmachines": {
        "spec": {"type": "object", "required": ["virtualMachineClassName", "cpu", "memory", "blockDeviceRefs"],
                 "rules": 2},  # coreFraction range; Legacy guests boot BIOS only and take no provisioning
        "spec.virtualMachineClassName": NAME,
        "spec.cpu.cores": {"type": "integer", "minimum": 1},
        # no default: DVP's defaulting webhook applies the class's sizing policy's defaultCoreFraction
        "spec.cpu.coreFraction": {"type": "string", "pattern": r"^(Auto|(100|[1-9][0-9]?)%)$", "default": None},
        "spec.memory.size": {"type": "string", "pattern": QUANTITY},
        "spec.blockDeviceRefs": {"type": "array", "minItems": 1, "maxItems": 16},
        "spec.blockDeviceRefs[].kind": {"type": "string",
                                        "enum": ["ClusterVirtualImage", "VirtualImage", "VirtualDisk"]},
        "spec.blockDeviceRefs[].name": NAME,
        "spec.provisioning": {"type": "object", "required": ["type"], "rules": 3},  # the field its type names
        "spec.provisioning.type": {"type": "string", "enum": ["UserData", "UserDataRef", "SysprepRef"]},
        "spec.provisioning.userDataRef": {"type": "object", "required": ["name", "kind"]},
        "spec.provisioning.userDataRef.kind": {"type": "string", "enum": ["Secret"]},
        "spec.provisioning.sysprepRef": {"type": "object", "required": ["kind", "name"]},
        "spec.provisioning.userDataRef.name": NAME,
        "spec.runPolicy": {"type": "string",
                           "enum": ["AlwaysOn", "AlwaysOff", "Manual", "AlwaysOnUnlessStoppedManually"],
                           "default": "AlwaysOnUnlessStoppedManually"},
        "spec.bootloader": {"type": "string", "enum": ["BIOS", "EFI", "EFIWithSecureBoot"], "default": "BIOS"},
        "spec.osType": {"type": "string", "enum": ["Windows", "Generic", "Legacy"], "default": "Generic"},
        "spec.liveMigrationPolicy": {"type": "string",
                                     "enum": ["AlwaysSafe", "PreferSafe", "AlwaysForced", "PreferForced"],
                                     "default": "PreferSafe"},
        "spec.priorityClassName": NAME,
        "spec.virtualMachineIPAddressName": NAME,
        "spec.gpus": {"type": "array", "maxItems": 16},
        "spec.gpus[].gpuClassName": {"type": "string", "pattern": DNS_SUBDOMAIN, "minLength": 1, "maxLength": 253},
        "spec.nodeSelector": {"type": "object"},
        "spec.tolerations": {"type": "array"},
        "status.blockDeviceRefs[]": {"type": "object", "required": ["kind", "name", "size", "attached"]},
        **CONDITIONS,
    },
    "virtualmachineipaddresses": {
        "spec": {"type": "object", "required": ["type"]},
        "spec.type": {"type": "string", "enum": ["Auto", "Static"]},
        "spec.staticIP": {"type": "string"},
        **CONDITIONS,
    },
    "virtualmachineipaddressleases": CONDITIONS,
    "virtualdisksnapshots": {
        "spec": {"type": "object", "required": ["virtualDiskName"]},
        "spec.virtualDiskName": NAME,
        "spec.requiredConsistency": {"type": "boolean"},
        **CONDITIONS,
    },
}
# DVP's messages the contract quotes, by resource and field: our CEL rules say them word for word.
QUOTED_MESSAGES = {
    ("virtualmachineoperations", "spec"): [".spec is immutable", "The `Start` operation cannot be performed forcibly."],
    ("virtualmachines", "spec"): ["Core fraction must be 'Auto' or a percentage between 1% and 100%."],
}


def storage_schema(plural: str) -> dict[str, Any]:
    (path,) = (p for p in dvp_crd_files() if p.name == f"{plural}.yaml")
    crd = yaml.safe_load(path.read_text())
    version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
    assert version["name"] == "v1alpha2", f"{plural}: DVP stores v1alpha2"
    return version["schema"]["openAPIV3Schema"]


def node(schema: dict[str, Any], path: str) -> dict[str, Any]:
    at = schema
    for part in path.split("."):
        items = part.endswith("[]")
        key = part.removesuffix("[]")
        assert key in (at.get("properties") or {}), f"our schema has no field {path} (stops at {key})"
        at = at["properties"][key]
        if items:
            at = at["items"]
    return at


def problems(ours: dict[str, Any], fact: dict[str, Any]) -> list[str]:
    out = []
    for key, want in fact.items():
        if key == "int-or-string":
            if not ours.get("x-kubernetes-int-or-string"):
                out.append("is not int-or-string")
        elif key in ("type", "pattern", "default"):
            if ours.get(key) != want:
                out.append(f"{key} {ours.get(key)!r}, DVP's {want!r}")
        elif key == "enum":
            if sorted(ours.get("enum") or []) != sorted(want):
                out.append(f"enum {ours.get('enum')}, DVP's {want}")
        elif key in ("minimum", "minLength", "minItems"):
            if ours.get(key) is None or ours[key] < want:
                out.append(f"{key} {ours.get(key)}, DVP's {want}")
        elif key in ("maximum", "maxLength", "maxItems"):
            if ours.get(key) is None or ours[key] > want:
                out.append(f"{key} {ours.get(key)}, DVP's {want}")
        elif key == "required":
            if missing := sorted(set(want) - set(ours.get("required") or [])):
                out.append(f"does not require {missing}")
        elif key == "rules":
            have = len(ours.get("x-kubernetes-validations") or []) + len(ours.get("oneOf") or [])
            if have < want:
                out.append(f"{have} rules, DVP checks {want}")
        else:
            raise AssertionError(f"unknown fact {key}")
    return out


@pytest.mark.parametrize("plural", sorted(FACTS))
def test_our_crd_carries_every_constraint_of_dvps_schema_on_the_fields_we_set(plural):
    schema = storage_schema(plural)
    found = {path: problems(node(schema, path), fact) for path, fact in FACTS[plural].items()}
    assert {path: p for path, p in found.items() if p} == {}


@pytest.mark.parametrize(("plural", "path"), sorted(QUOTED_MESSAGES))
def test_the_rules_the_contract_quotes_use_dvps_words(plural, path):
    rules = node(storage_schema(plural), path).get("x-kubernetes-validations") or []
    assert set(QUOTED_MESSAGES[plural, path]) <= {r.get("message") for r in rules}


def test_the_facts_check_something():
    wrong = {"type": "string", "enum": ["A"], "minLength": 2, "maxItems": 3, "required": ["x"], "rules": 1,
             "int-or-string": True, "pattern": "^a$"}
    assert len(problems({"type": "integer", "minLength": 1, "maxItems": 4}, wrong)) == len(wrong)

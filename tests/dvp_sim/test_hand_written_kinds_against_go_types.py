# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The four kinds whose CRDs DVP writes by hand (VirtualMachine, VirtualMachineIPAddress,
VirtualMachineIPAddressLease, VirtualDiskSnapshot; ours in sim/crds) held to DVP's Go types.

Their schemas are generated here, at test time, by the pinned controller-gen over the pinned DVP API module (the
read-only module cache, its go.sum hash checked), as test_generated_crds.py does for the kinds DVP generates. The
objects are those our components build, by their own code: capdvp's VirtualMachines (its manifests over a matrix
of machine specs) and its VM patches, dvp_common's VirtualMachineIPAddress bodies (the one builder; no component
creates an address today, dhctl's layouts do in OpenTofu), and the CSI driver's VirtualDiskSnapshots (its
CreateSnapshot and clone paths run over the in-memory API, the bodies caught as sent). The CCM creates none of
these kinds (only labels VMs). For every field path they set:

1. DVP's Go types have it (else DVP prunes it), and the value passes the Go schema's type, enum, pattern, format
   (and, for a created body, required) at every node on the way, where the Go schema and sim/crds agree; where
   they disagree only DISAGREEMENTS may say so, and the value is judged by the CRD's side (the one DVP serves).
   Every entry of DISAGREEMENTS is checked to differ as written, so the table stays true.
2. sim/crds has it too.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from capdvp.controllers.machine_update import _vm_patch
from capdvp.domain import manifests
from capdvp.domain.machine_spec import BOOTLOADERS, IMAGE_KINDS, LIVE_MIGRATION_POLICIES, RUN_POLICIES, parse_spec
from dvp_common.dvp import labels as L
from dvp_common.dvp.connection import DVPConnection
from dvp_common.dvp.ipaddresses import IPAddresses
from dvp_csi.access import Dvp
from dvp_csi.settings import Settings
from dvp_csi.snapshots import Snapshots
from dvp_csi.volumes import Source, Volumes

from sim import dvp_crds
from testkit.recorded import RecordedApi

TOP = Path(__file__).resolve().parents[2]
DVP_API = "github.com/deckhouse/virtualization/api"
PLURALS = {"VirtualMachine": "virtualmachines", "VirtualMachineIPAddress": "virtualmachineipaddresses",
           "VirtualMachineIPAddressLease": "virtualmachineipaddressleases",
           "VirtualDiskSnapshot": "virtualdisksnapshots"}
UUID = "0e3d8b6a-8f1e-4c55-9d2a-3a4b5c6d7e8f"
NS = "project"

# The facts compared between the Go-generated schema and sim/crds at every node on a path we set.
FACTS = ("type", "enum", "pattern", "format", "required", "default", "rules")

# Where controller-gen over DVP's Go types and the CRD DVP serves (ours, sim/crds, written from it) disagree:
# (kind, schema path, fact) -> (the Go-generated value, the served CRD's value). Enums, required and rules are
# sorted tuples; "int-or-string" is x-kubernetes-int-or-string; "rules" are the x-kubernetes-validations rules.
DISAGREEMENTS: dict[tuple[str, str, str], tuple[Any, Any]] = {
    # The Go markers make memory.size an int-or-string; the CRD a string with the quantity pattern.
    ("VirtualMachine", "spec.memory.size", "type"): ("int-or-string", "string"),
    # Go: 6 policies and required; the CRD: 4, PreferSafe by default.
    ("VirtualMachine", "spec.liveMigrationPolicy", "enum"): (
        ("AlwaysForced", "AlwaysSafe", "Manual", "Never", "PreferForced", "PreferSafe"),
        ("AlwaysForced", "AlwaysSafe", "PreferForced", "PreferSafe")),
    ("VirtualMachine", "spec.liveMigrationPolicy", "default"): (None, "PreferSafe"),
    ("VirtualMachine", "spec", "required"): (
        ("blockDeviceRefs", "cpu", "liveMigrationPolicy", "memory", "virtualMachineClassName"),
        ("blockDeviceRefs", "cpu", "memory", "virtualMachineClassName")),
    # Go requires only the name of a provisioning reference; the CRD its kind too.
    ("VirtualMachine", "spec.provisioning.userDataRef", "required"): (("name",), ("kind", "name")),
    ("VirtualMachine", "spec.provisioning.sysprepRef", "required"): (("name",), ("kind", "name")),
    # No enum in Go.
    ("VirtualMachine", "spec.provisioning.type", "enum"): (None, ("SysprepRef", "UserData", "UserDataRef")),
    ("VirtualMachine", "spec.networks[].type", "enum"): (None, ("ClusterNetwork", "Main", "Network")),
    # The inline userData's size limit is only in the CRD.
    ("VirtualMachine", "spec.provisioning.userData", "rules"): (None, ("size(self) <= 2048",)),
    # The CRD's core fraction may be Auto; its own rules on spec (the fraction's range, Legacy guests) and the
    # Legacy OS type are not in the Go types.
    ("VirtualMachine", "spec.cpu.coreFraction", "pattern"): ("^(100|[1-9][0-9]?|[1-9])%$",
                                                             "^(Auto|(100|[1-9][0-9]?)%)$"),
    ("VirtualMachine", "spec.osType", "enum"): (("Generic", "Windows"), ("Generic", "Legacy", "Windows")),
    ("VirtualMachine", "spec", "rules"): (None, (
        "!has(self.cpu.coreFraction) || self.cpu.coreFraction == 'Auto' || (self.cpu.coreFraction.endsWith('%') "
        "&& int(self.cpu.coreFraction.replace('%', '')) >= 1 && int(self.cpu.coreFraction.replace('%', '')) <= 100)",
        "has(self.osType) && self.osType == 'Legacy' ? !has(self.bootloader) || self.bootloader == 'BIOS' : true",
        "has(self.osType) && self.osType == 'Legacy' ? !has(self.provisioning) : true")),
    # VirtualMachineIPAddress: no enum on spec.type in Go; the CRD requires spec, a Static address's IP, IPv4.
    ("VirtualMachineIPAddress", "spec.type", "enum"): (None, ("Auto", "Static")),
    ("VirtualMachineIPAddress", "", "required"): (None, ("spec",)),
    ("VirtualMachineIPAddress", "spec", "rules"): (None, ("self.type != 'Static' || has(self.staticIP)",)),
    ("VirtualMachineIPAddress", "spec.staticIP", "format"): (None, "ipv4"),
    # VirtualDiskSnapshot: requiredConsistency required in Go, true by default in the CRD; the spec immutable.
    ("VirtualDiskSnapshot", "spec", "required"): (("requiredConsistency", "virtualDiskName"), ("virtualDiskName",)),
    ("VirtualDiskSnapshot", "spec.requiredConsistency", "default"): (None, True),
    ("VirtualDiskSnapshot", "spec", "rules"): (None, ("self == oldSelf",)),
}


def fail_setup(what: str) -> None:
    pytest.fail(f"{what}: run `make setup` (it builds .bin/controller-gen and fetches DVP's API module)")


def go(*args: str) -> str:
    if shutil.which("go") is None:
        fail_setup("Go is not on PATH (DVP's API module comes through the Go module proxy; install Go >= 1.26)")
    res = subprocess.run(["go", *args], cwd=TOP / "tools" / "upstream", capture_output=True, text=True, timeout=600,
                         env={**os.environ, "GOFLAGS": "-mod=readonly"})
    assert res.returncode == 0, res.stderr
    return res.stdout


def storage_schema(doc: dict) -> dict:
    return next(v for v in doc["spec"]["versions"] if v.get("storage", True))["schema"]["openAPIV3Schema"]


@pytest.fixture(scope="module")
def go_schemas(tmp_path_factory) -> dict[str, dict]:
    """The four kinds' schemas, generated now by the pinned controller-gen from the pinned, hash-checked module."""
    controller_gen = TOP / ".bin" / "controller-gen"
    if not controller_gen.exists():
        fail_setup(f"{controller_gen} is missing")
    pinned = re.search(r"^require sigs\.k8s\.io/controller-tools (v\S+)$",
                       (TOP / "tools" / "controller-gen" / "go.mod").read_text(), re.MULTILINE)
    assert pinned is not None, "tools/controller-gen/go.mod pins no sigs.k8s.io/controller-tools"
    res = subprocess.run([str(controller_gen), "--version"], capture_output=True, text=True, timeout=60)
    if res.stdout.strip() != f"Version: {pinned[1]}":
        fail_setup(f"{controller_gen} reports {res.stdout.strip() or res.stderr.strip()!r}, not {pinned[1]}")
    version = json.loads(go("list", "-m", "-json", DVP_API))["Version"]
    info = json.loads(go("mod", "download", "-json", f"{DVP_API}@{version}"))
    assert f"{DVP_API} {version} {info['Sum']}" in (TOP / "tools" / "upstream" / "go.sum").read_text()
    out = tmp_path_factory.mktemp("controller-gen")
    # The four kinds are all core/v1alpha2 types.
    res = subprocess.run([str(controller_gen), "crd", "paths=./core/v1alpha2/...", f"output:crd:dir={out}"],
                         cwd=info["Dir"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    return {kind: storage_schema(yaml.safe_load((out / f"virtualization.deckhouse.io_{plural}.yaml").read_text()))
            for kind, plural in PLURALS.items()}


@pytest.fixture(scope="module")
def hand_schemas() -> dict[str, dict]:
    return {kind: storage_schema(yaml.safe_load((dvp_crds.HAND_WRITTEN / f"{plural}.yaml").read_text()))
            for kind, plural in PLURALS.items()}


# -- what our components build ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Built:
    who: str
    body: dict
    created: bool = True  # a created body (required fields apply), not a patch

    @property
    def kind(self) -> str:
        return self.body.get("kind", "VirtualMachine")  # capdvp's VM patches name no kind


def machine_specs() -> Iterator[tuple[dict, bool]]:
    """DeckhouseMachine specs covering every enum value, both quantity forms, with and without a core fraction,
    additional disks and placement (node selector, tolerations, priority class)."""
    memories = ("4Gi", 4294967296)
    policies = (*LIVE_MIGRATION_POLICIES, "")
    n = max(len(BOOTLOADERS), len(RUN_POLICIES), len(policies), len(IMAGE_KINDS), 2)
    for i in range(n):
        spec: dict[str, Any] = {
            "vmClassName": "generic", "cpu": {"cores": 2, **({"cpuFraction": "25%"} if i % 2 else {})},
            "memory": memories[i % 2], "rootDiskSize": ("10Gi", 10737418240)[i % 2], "rootDiskStorageClass": "sc",
            "bootDiskImageRef": {"kind": IMAGE_KINDS[i % len(IMAGE_KINDS)], "name": "image"},
            "bootloader": BOOTLOADERS[i % len(BOOTLOADERS)], "runPolicy": RUN_POLICIES[i % len(RUN_POLICIES)],
            "additionalDisks": [{"size": "1Gi", "storageClass": "sc"}] * (i % 2),
        }
        if policies[i % len(policies)]:
            spec["liveMigrationPolicy"] = policies[i % len(policies)]
        if i % 2:
            spec.update(nodeSelector={"node-role.example.com/vm": ""}, priorityClassName="high",
                        additionalLabels={"team": "a"}, additionalAnnotations={"note": "b"},
                        tolerations=[{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule",
                                      "tolerationSeconds": 30}, {"operator": "Exists"}],
                        nodeSelectorTerms=[{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]},
                                           {"matchFields": [{"key": "metadata.name", "operator": "In",
                                                             "values": ["n1"]}]}])
        yield spec, i % 2 == 0


def capdvp_objects() -> list[Built]:
    out = []
    for i, (raw, control_plane) in enumerate(machine_specs()):
        spec = parse_spec(raw)
        vm = manifests.virtual_machine(f"m{i}", spec, UUID, control_plane, {"extra": "x"}, zone=("", "zone-a")[i % 2])
        out.append(Built("capdvp", vm))
        out.append(Built("capdvp patch", _vm_patch(spec, manifests.live_migration_policy(spec, control_plane)),
                         created=False))
    return out


def address_objects() -> list[Built]:
    addresses = IPAddresses(DVPConnection(None, NS, UUID), L.CAPDVP)  # type: ignore[arg-type]  # builds only
    return [Built("dvp_common", addresses.new("auto")), Built("dvp_common", addresses.new("static", "10.0.0.7"))]


def csi_objects() -> list[Built]:
    """The CSI driver's VirtualDiskSnapshots as its CreateSnapshot and clone paths send them."""
    api = RecordedApi(namespaces=(NS,))
    dvp = Dvp.over(api.client, NS, UUID)
    sent: list[dict] = []
    create = dvp.snapshots.create

    def catch(body: dict, **kw: Any) -> dict:
        sent.append(copy.deepcopy(body))
        return create(body, **kw)

    dvp.snapshots.create = catch  # type: ignore[method-assign]
    dvp.disks.create(dvp.disks.new("pvc-source", "1Gi", "sc"))
    snapshots = Snapshots(dvp, Settings())
    for consistent in ("true", "false"):
        snapshots.create(f"snapshot-{consistent}", "pvc-source", {"requiredConsistency": consistent})
    Volumes(dvp, Settings())._data_source("pvc-clone", Source("volume", "pvc-source"), 0)
    assert len(sent) == 3, sent
    return [Built("csi", body) for body in sent]


@pytest.fixture(scope="module")
def built() -> list[Built]:
    return capdvp_objects() + address_objects() + csi_objects()


def test_the_objects_cover_our_kinds(built):
    assert {b.kind for b in built} == set(PLURALS) - {"VirtualMachineIPAddressLease"}


def test_the_ccm_creates_none_of_these_kinds():
    """The CCM reads VMs (and labels them, metadata only); it builds no body of these kinds."""
    source = "\n".join(p.read_text() for p in (TOP / "images" / "cloud-controller-manager" / "dvp_ccm").rglob("*.py"))
    for builder in ("manifests.virtual_machine", "manifests.ip_address", "vms.create", "ip_addresses",
                    "IPAddresses", "snapshots", "Snapshots", "VIRTUAL_DISK_SNAPSHOT", "VIRTUAL_MACHINE_IP_ADDRESS"):
        assert builder not in source, builder


# -- the walker ---------------------------------------------------------------------------------------------------

def facts(node: dict) -> dict[str, Any]:
    def tup(values: Any) -> tuple | None:
        return tuple(sorted(values)) if values else None
    return {"type": "int-or-string" if node.get("x-kubernetes-int-or-string") else node.get("type"),
            "enum": tup(node.get("enum")), "pattern": node.get("pattern"), "format": node.get("format"),
            "required": tup(node.get("required")), "default": node.get("default"),
            "rules": tup([r["rule"] for r in node.get("x-kubernetes-validations") or ()])}


def child(node: dict, key: str | None) -> tuple[dict | None, str]:
    """The schema of a child (key None: an item), and its step in a schema path; None when the schema has none."""
    if key is None:
        return node.get("items"), "[]"
    if key in (node.get("properties") or {}):
        return node["properties"][key], key
    extra = node.get("additionalProperties")
    return (extra, "{}") if isinstance(extra, dict) else (None, key)


def is_open(node: dict, path: str) -> bool:
    """Whatever lies below is kept as written: unknown fields preserved, or the object's metadata."""
    return bool(node.get("x-kubernetes-preserve-unknown-fields")) or path == "metadata"


@dataclass
class Findings:
    go_missing: set[str] = field(default_factory=set)
    hand_missing: set[str] = field(default_factory=set)
    undeclared: set[tuple[str, str, str]] = field(default_factory=set)
    invalid: list[str] = field(default_factory=list)
    paths: set[str] = field(default_factory=set)


def check(kind: str, go: dict, hand: dict, b: Built, found: Findings,
          table: dict[tuple[str, str, str], tuple[Any, Any]]) -> None:
    def visit(value: Any, g: dict | None, h: dict | None, path: str, where: str) -> None:
        found.paths.add(path)
        judged: dict[str, Any] = {}
        if g is not None:
            judged = facts(g)
            if h is not None:
                theirs = facts(h)
                for fact in FACTS:
                    if judged[fact] != theirs[fact]:
                        if (kind, path, fact) not in table:
                            found.undeclared.add((kind, path, fact))
                        judged[fact] = theirs[fact]  # the CRD DVP serves judges
            schema: dict[str, Any] = {}
            if judged["type"] == "int-or-string":
                schema["type"] = ["integer", "string"]
            elif judged["type"]:
                schema["type"] = judged["type"]
            for key in ("enum", "pattern", "format"):
                if judged[key] is not None:
                    schema[key] = list(judged[key]) if key == "enum" else judged[key]
            if judged["required"] and b.created:
                schema["required"] = list(judged["required"])
            for error in jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()) \
                    .iter_errors(value):
                found.invalid.append(f"{kind} {where} ({b.who}): {error.message}")
        go_open, hand_open = g is not None and is_open(g, path), h is not None and is_open(h, path)
        if go_open and hand_open:
            return
        children: list[tuple[str | None, Any]] = []
        if isinstance(value, dict):
            children = list(value.items())
        elif isinstance(value, list):
            children = [(None, v) for v in value]  # an item: its schema is the array's `items`
        for key, sub in children:
            g2, step = child(g, key) if g is not None and not go_open else (None, "[]" if key is None else key)
            h2, hstep = child(h, key) if h is not None and not hand_open else (None, step)
            step = step if g2 is not None else hstep
            sub_path = f"{path}{step}" if step in ("[]", "{}") else f"{path}.{step}" if path else step
            sub_where = f"{where}[]" if key is None else f"{where}.{key}" if where else key
            if g2 is None and not go_open and g is not None:
                found.go_missing.add(f"{kind} {sub_where} ({b.who})")
            if h2 is None and not hand_open and h is not None:
                found.hand_missing.add(f"{kind} {sub_where} ({b.who})")
            if g2 is not None or h2 is not None:
                visit(sub, g2, h2, sub_path, sub_where)

    visit(b.body, go, hand, "", "")


def judge(objects: list[Built], go_schemas: dict, hand_schemas: dict,
          table: dict[tuple[str, str, str], tuple[Any, Any]] = DISAGREEMENTS) -> Findings:
    found = Findings()
    for b in objects:
        check(b.kind, go_schemas[b.kind], hand_schemas[b.kind], b, found, table)
    return found


def stale_entries(go_schemas: dict, hand_schemas: dict,
                  table: dict[tuple[str, str, str], tuple[Any, Any]]) -> list[str]:
    """Entries whose two sides are not what the Go-generated schema and sim/crds say at that path."""
    def node(schema: dict, path: str) -> dict | None:
        for step in re.findall(r"\[\]|\{\}|[^.\[\]{}]+", path):
            key = None if step == "[]" else "" if step == "{}" else step
            schema = child(schema, key)[0] if key != "" else schema.get("additionalProperties")
            if not isinstance(schema, dict):
                return None
        return schema

    out = []
    for (kind, path, fact), (want_go, want_crd) in table.items():
        g, h = node(go_schemas[kind], path), node(hand_schemas[kind], path)
        have = (facts(g)[fact] if g is not None else "<no such path>", facts(h)[fact] if h is not None else
                "<no such path>")
        if have != (want_go, want_crd) or want_go == want_crd:
            out.append(f"{kind} {path or '<root>'} {fact}: table says {(want_go, want_crd)}, schemas say {have}")
    return out


# -- the checks -----------------------------------------------------------------------------------------------------

def test_every_listed_disagreement_is_true(go_schemas, hand_schemas):
    assert stale_entries(go_schemas, hand_schemas, DISAGREEMENTS) == []


def test_dvps_go_types_have_every_field_we_set(built, go_schemas, hand_schemas):
    found = judge(built, go_schemas, hand_schemas)
    assert sorted(found.go_missing) == [], "fields DVP's Go types lack (DVP would prune them)"


def test_every_value_we_set_passes_the_go_schema_where_it_agrees_with_the_crd(built, go_schemas, hand_schemas):
    found = judge(built, go_schemas, hand_schemas)
    assert sorted(found.undeclared) == [], "disagreements on our paths that DISAGREEMENTS does not list"
    assert found.invalid == []
    # The walk reached the leaves that matter, and the listed disagreements on our paths judged them.
    assert {"spec.memory.size", "spec.liveMigrationPolicy", "spec.provisioning.userDataRef.kind",
            "spec.tolerations[]", "spec.nodeSelector{}", "spec.requiredConsistency", "spec.staticIP"} <= found.paths


def test_sim_crds_has_every_field_we_set(built, go_schemas, hand_schemas):
    assert sorted(judge(built, go_schemas, hand_schemas).hand_missing) == []


# -- the checks can fail ----------------------------------------------------------------------------------------------

def test_a_planted_field_and_value_are_caught(built, go_schemas, hand_schemas):
    vm = copy.deepcopy(next(b.body for b in built if b.body["kind"] == "VirtualMachine"))
    vm["spec"]["plantedField"] = "x"
    vm["spec"]["cpu"]["plantedCores"] = 1
    vm["spec"]["runPolicy"] = "Sometimes"
    vm["spec"]["memory"]["size"] = 4294967296  # an integer: the Go types take it, the CRD DVP serves does not
    del vm["spec"]["blockDeviceRefs"]
    found = judge([Built("planted", vm)], go_schemas, hand_schemas)
    assert found.go_missing == found.hand_missing == {"VirtualMachine spec.plantedField (planted)",
                                                      "VirtualMachine spec.cpu.plantedCores (planted)"}
    assert len(found.invalid) == 3, found.invalid
    assert any("'Sometimes' is not one of" in e for e in found.invalid)
    assert any("spec.memory.size" in e and "is not of type 'string'" in e for e in found.invalid)
    assert any("'blockDeviceRefs' is a required property" in e for e in found.invalid)


def test_an_unlisted_disagreement_and_a_stale_entry_are_caught(built, go_schemas, hand_schemas):
    key = ("VirtualMachine", "spec.liveMigrationPolicy", "enum")
    assert key in judge(built, go_schemas, hand_schemas, {k: v for k, v in DISAGREEMENTS.items() if k != key}) \
        .undeclared
    stale = {("VirtualMachine", "spec.runPolicy", "enum"): (None, ("AlwaysOn",)),
             ("VirtualMachine", "spec.memory.size", "type"): ("string", "string")}
    assert len(stale_entries(go_schemas, hand_schemas, stale)) == 2

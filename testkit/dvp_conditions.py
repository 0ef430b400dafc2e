# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every condition string of ours held to DVP's own constants (`tests/dvp_common/test_conditions_are_dvps.py`,
`make bench` figure `conditions.check.*`).

DVP's constants are read from the pinned API modules that `tools/fetch-upstream` copies to
`.cache/upstream/dvp/api-<version>/core/v1alpha2/` (`<package>/condition.go`: `Name Type = "value"` and the reason
types; `*.go`: the typed phases). The strings checked: what the simulator writes (every `put` of sim/ resolved to
its type and reason), the `Type=Status/Reason` rows of sim/CONTRACT.md, the reasons, types and phases components
and hooks compare with (module constants named `DVP_*`, `*REASON*`, `*PHASE*`, `*FINISHED*` and literals compared
with a reason), candi's (`*.tf`/`*.tftest.hcl` reason lists and fixtures), and the dvp_common table both ways.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dvp_common.dvp import conditions as D

TOP = Path(__file__).resolve().parent.parent
UPSTREAM = TOP / ".cache" / "upstream" / "dvp"
VERSIONS = (D.API_VERSION, D.OLD_API_VERSION)

# Strings of DVP releases newer than the pinned API module, each with the release it came in.
NEWER = {
    "Superseded": "DVP v1.10 (VMOP phase and Completed reason)",
    "StorageClassProvisionerMismatch": "DVP v1.9.6 (VirtualDisk Ready reason)",
    "ProvisioningFailedTerminally": "DVP main after v1.10.2 (VirtualDisk Ready reason)",
}
# v1.0.0 strings of the tabled packages v1.8.0 dropped with no successor under a type we read or write
GONE = {
    "LastMigrationFinishedWithError": "vm Migrating (not read): now Pending/ReadyToMigrate/InProgress",
    "MigrationIsPending": "vm Migrating (not read)", "VirtualMachineMigrating": "vm Migrating (not read)",
    "VirtualMachineNotMigrating": "vm Migrating (not read)",
    "VirtualMachineMACAddressNotAssigned": "vm VirtualMachineMACAddressReady (not read)",
    "NeedsEvict": "vm NeedsEvict, now the type EvictionRequired (not read)",
    "SDNModuleDisable": "vm NetworkReady (not read): now SDNModuleDisabled",
    "WaitingForTheProvisioningToPersistentVolumeClaim": "removed",
    "RestoreCompleted": "vmop type RestoreCompleted, removed", "RestoreFailed": "vmop RestoreCompleted, removed",
    "RestoreDryRunCompleted": "vmop RestoreCompleted, removed",
}
# Reasons outside the api module: the controller's generic conditions.ReasonUnknown.
GENERIC = {D.UNKNOWN: "DVP controller's conditions.ReasonUnknown"}
# Reasons tests plant on purpose: a reason DVP does not define, to show how the code treats one it may add.
PLANTED = {"SomeReasonDVPAddsLater": "candi address-stuck's tftest: an unknown reason is an address still set up"}
PLANTED_PAIRS = {("Attached", "VirtualMachineIPAddressLeaseLost"):
                 "candi address-stuck's tftest: a Bound reason under another type is not read as Bound's"}
# Kinds the simulator plays that are not DVP's (no DVP constants to hold them to).
NOT_DVP_SIM_FILES = {"sim/domain/healthchecks.py": "ServiceWithHealthchecks: network.deckhouse.io, not DVP's API",
                     "sim/domain/services.py": "Services and LoadBalancers: Kubernetes', not DVP's API"}
# CONTRACT.md rows of those kinds (C15, C16): their reasons are not DVP's constants.
NOT_DVP_CONTRACT = {"AllEndpointsAreReady", "NotAllEndpointsAreReady", "NoEndpointsAreReady", "ServiceExists"}

_CONST = re.compile(r'^\s*(\w+)\s+(\w+)\s*=\s*"([^"]*)"', re.MULTILINE)
_BLOCK = re.compile(r"\bconst\s*\((.*?)\n\)", re.DOTALL)
_PHASE_TYPE = re.compile(r"^type\s+(\w*Phase)\s+string", re.MULTILINE)


@dataclass
class Constants:
    """One API version's constants: per package, types {value: const} and reasons {value: const}; phases."""

    version: str
    types: dict[str, dict[str, str]] = field(default_factory=dict)
    reasons: dict[str, dict[str, str]] = field(default_factory=dict)
    consts: dict[str, dict[str, str]] = field(default_factory=dict)  # package -> const name -> value
    gotypes: dict[str, dict[str, str]] = field(default_factory=dict)  # package -> const name -> Go type
    phases: set[str] = field(default_factory=set)

    def all_types(self) -> set[str]:
        return {v for p in self.types.values() for v in p}

    def all_reasons(self) -> set[str]:
        return {v for p in self.reasons.values() for v in p}


class UpstreamMissing(RuntimeError):
    pass


def parse_go_consts(text: str) -> list[tuple[str, str, str]]:
    """(name, type, value) of every typed string constant in the file's `const ( ... )` blocks."""
    return [m for block in _BLOCK.findall(text) for m in _CONST.findall(block)]


def load(version: str, root: Path = UPSTREAM) -> Constants:
    base = root / f"api-{version}" / "core" / "v1alpha2"
    files = sorted(base.glob("*/condition.go"))
    if not files:
        raise UpstreamMissing(f"no DVP API {version} constants under {base}: run `make upstream`")
    out = Constants(version)
    for path in files:
        package = path.parent.name
        types, reasons, consts, gotypes = {}, {}, {}, {}
        for name, gotype, value in parse_go_consts(path.read_text()):
            consts[name], gotypes[name] = value, gotype
            (types if gotype == "Type" else reasons)[value] = name
        out.types[package], out.reasons[package], out.consts[package] = types, reasons, consts
        out.gotypes[package] = gotypes
    for path in sorted(base.glob("*.go")):
        text = path.read_text()
        phase_types = set(_PHASE_TYPE.findall(text))
        out.phases |= {v for _, t, v in parse_go_consts(text) if t in phase_types}
    return out


@dataclass(frozen=True)
class Found:
    where: str  # file:line or a table entry
    what: str  # "type", "reason" (of ctype), "phase", "constant" (package.Name, ctype its value), "any", "unreadable"
    value: str
    ctype: str = ""  # for a reason: its condition type, when known


@dataclass
class Report:
    checked: int = 0
    problems: list[str] = field(default_factory=list)


class Checker:
    def __init__(self, new: Constants, old: Constants) -> None:
        self.new, self.old = new, old

    # the single judgements
    def _package_of_type(self, value: str) -> list[str]:
        return [p for p, types in self.new.types.items() if value in types]

    def known(self, found: Found) -> str | None:
        """None when DVP defines it, else the problem."""
        value = found.value
        if value in NEWER or value in GENERIC or value in PLANTED:
            return None
        if found.what == "phase":
            return None if value in self.new.phases else \
                f"{found.where}: phase {value!r} is no DVP {self.new.version} phase"
        if found.what == "type":
            return None if value in self.new.all_types() else \
                f"{found.where}: condition type {value!r} is not DVP {self.new.version}'s"
        if found.what == "constant":
            package, _, const = value.partition(".")
            return None if self.new.consts.get(package, {}).get(const) == found.ctype else \
                f"{found.where}: DVP {self.new.version}'s {value} is not {found.ctype!r}"
        if found.what == "reason" and (found.ctype, value) in PLANTED_PAIRS:
            return None
        if found.what == "reason" and found.ctype:
            packages = self._package_of_type(found.ctype)
            if not packages:
                return f"{found.where}: condition type {found.ctype!r} is not DVP {self.new.version}'s"
            tabled = [t for t in D.TYPES if t.value == found.ctype and t.package in packages]
            if tabled:  # a type of the table: the reason must be one the table (held to DVP) gives it
                if any(value == r.value for t in tabled for r in t.reasons):
                    return None
            elif any(value in self.new.reasons[p] for p in packages):
                return None
            return f"{found.where}: {found.ctype} reason {value!r} is not DVP {self.new.version}'s"
        if value in self.new.all_reasons() or value in self.new.all_types() or value in self.new.phases:
            return None
        return f"{found.where}: {value!r} is no DVP {self.new.version} condition type, reason or phase"

    def check(self, found: Iterable[Found]) -> Report:
        report = Report()
        for f in found:
            report.checked += 1
            problem = self.known(f)
            if problem:
                report.problems.append(problem)
        return report

    def table(self) -> Report:
        """The dvp_common table against the constants, both ways."""
        report = Report()
        for ctype in D.TYPES:
            report.checked += 1
            consts = self.new.consts.get(ctype.package)
            if consts is None:
                report.problems.append(f"{ctype.kind} {ctype.value}: no DVP package {ctype.package}")
                continue
            if consts.get(ctype.const) != ctype.value or ctype.value not in self.new.types[ctype.package]:
                report.problems.append(f"{ctype.kind}: type {ctype.value!r} is not {ctype.package}.{ctype.const}")
            for r in ctype.reasons:
                report.checked += 1
                where = f"{ctype.kind} {ctype.value} reason {r.value!r}"
                if r.since:
                    if r.value not in NEWER or r.const or r.value in self.new.reasons[ctype.package]:
                        report.problems.append(f"{where}: a newer string must be listed in NEWER, without a "
                                               f"v1.8.0 constant")
                    continue
                if consts.get(r.const) != r.value or r.const in self.new.types[ctype.package].values():
                    report.problems.append(f"{where}: is not {ctype.package}.{r.const}")
                for old in r.old:
                    if old not in self.old.reasons.get(ctype.package, {}):
                        report.problems.append(f"{where}: its old spelling {old!r} is not DVP "
                                               f"{self.old.version}'s")
            # the other way: every reason DVP gives the type (by its Go reason type) is in the table
            if ctype.reason_type:
                gotypes = self.new.gotypes[ctype.package]
                tabled = {r.const for r in ctype.reasons}
                for name in sorted(n for n, t in gotypes.items() if t == ctype.reason_type):
                    report.checked += 1
                    if name not in tabled:
                        report.problems.append(f"{ctype.kind} {ctype.value}: DVP's {ctype.package}.{name} "
                                               f"({consts[name]!r}) is missing from the table")
                for r in ctype.reasons:
                    if r.const and gotypes.get(r.const) != ctype.reason_type:
                        report.problems.append(f"{ctype.kind} {ctype.value} reason {r.value!r}: DVP types it "
                                               f"{gotypes.get(r.const)}, not {ctype.reason_type}")
        # and every v1.0.0 reason of those packages that v1.8.0 no longer has is an `old` spelling or listed gone
        for package in sorted({t.package for t in D.TYPES}):
            for name, value in sorted(self.old.consts.get(package, {}).items()):
                if value in self.old.types.get(package, {}) or value in self.new.consts[package].values():
                    continue
                report.checked += 1
                if value not in D.renamed() and value not in GONE:
                    report.problems.append(f"{package}: v1.0.0's {name} ({value!r}) is gone in v1.8.0: give the "
                                           "table its new spelling (`old`) or list it in GONE")
        return report


# What the simulator writes
def _resolve(node: ast.expr, module, conditions) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        target = conditions if node.value.id == "C" else getattr(module, node.value.id, None)
        value = getattr(target, node.attr, None)
        return _values(value)
    if isinstance(node, ast.Name):
        return _values(getattr(module, node.id, None))
    if isinstance(node, ast.Subscript):
        return _resolve(node.value, module, conditions)
    if isinstance(node, ast.IfExp):
        a, b = _resolve(node.body, module, conditions), _resolve(node.orelse, module, conditions)
        return None if a is None or b is None else a + b
    return None


def _values(value) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return list(value.values())
    return None


# the simulator's helpers that put a condition of a fixed type with the reason they are given: (type, reason's
# argument index); their calls are checked, the put inside them (line numbers in PUT_HELPER_BODIES) is not
PUT_HELPERS = {"sim/domain/operations.py": {"_fail": ("Completed", 1)}}


def _helper_bodies(top: Path) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for rel, helpers in PUT_HELPERS.items():
        for node in ast.walk(ast.parse((top / rel).read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in helpers:
                out.setdefault(rel, set()).update(n.lineno for n in ast.walk(node) if isinstance(n, ast.Call))
    return out


def simulator_writes(top: Path = TOP) -> Iterator[Found]:
    """(type, reason) of every condition the simulator puts, resolved through its modules."""
    import importlib

    conditions = importlib.import_module("sim.conditions")
    helper_bodies = _helper_bodies(top)
    for path in sorted([*(top / "sim").glob("*.py"), *(top / "sim" / "domain").glob("*.py")]):
        rel = path.relative_to(top).as_posix()
        if rel in NOT_DVP_SIM_FILES or rel == "sim/conditions.py":
            continue
        module = importlib.import_module(rel[:-3].replace("/", "."))
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or node.lineno in helper_bodies.get(rel, ()):
                continue
            is_put = isinstance(node.func, ast.Attribute) and node.func.attr == "put" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "C"
            if not is_put and not (isinstance(node.func, ast.Name) and node.func.id in PUT_HELPERS.get(rel, {})):
                continue
            where = f"{rel}:{node.lineno}"
            helper = PUT_HELPERS.get(rel, {}).get(getattr(node.func, "id", ""))
            types = [helper[0]] if helper else _resolve(node.args[1], module, conditions)
            reasons = _resolve(node.args[helper[1] if helper else 3], module, conditions)
            if types is None or reasons is None:
                yield Found(where, "unreadable", ast.unparse(node))
                continue
            for ctype in types:
                yield Found(where, "type", ctype)
                for reason in reasons:
                    yield Found(where, "reason", reason, ctype)


# sim/CONTRACT.md
_ROW = re.compile(r"`([A-Za-z]+)=(?:True|False|Unknown)/([A-Za-z]+)`")


_TABLE_ROW = re.compile(r"^\| \w+ \| `(\w+)` \| `(\w+)`[^|]*\| (?:`(\w+)\.(\w+)`|none: [^|]+) \|")


def contract_strings(path: Path) -> Iterator[Found]:
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        row = _TABLE_ROW.match(line)
        if row:  # the condition strings table: type, reason and the constant it names
            ctype, reason, package, const = row.groups()
            yield Found(f"{path.name}:{lineno}", "type", ctype)
            yield Found(f"{path.name}:{lineno}", "reason", reason, ctype)
            if package:
                yield Found(f"{path.name}:{lineno}", "constant", f"{package}.{const}", reason)
        for ctype, reason in _ROW.findall(line):
            if reason in NOT_DVP_CONTRACT:
                continue
            yield Found(f"{path.name}:{lineno}", "type", ctype)
            yield Found(f"{path.name}:{lineno}", "reason", reason, ctype)


# components and hooks
COMPONENT_ROOTS = ("images/capdvp-controller-manager/capdvp", "images/cloud-controller-manager/dvp_ccm",
                   "images/cloud-data-discoverer/cloud_data_discoverer", "images/webhooks/dvp_webhooks",
                   "images/dvp-common/dvp_common", "csi/dvp_csi", "hooks")
# our own names of conditions we publish (CAPI, CSI), not DVP's: their modules are left out
OURS = {"images/capdvp-controller-manager/capdvp/domain/conditions.py": "capdvp's own CAPI conditions",
        "images/cloud-data-discoverer/cloud_data_discoverer/domain/conditions.py": "the discoverer's own conditions",
        "images/cloud-data-discoverer/cloud_data_discoverer/errors.py": "our transport's error reasons",
        "images/dvp-common/dvp_common/kube/errors.py": "Kubernetes API Status reasons, not conditions",
        "images/dvp-common/dvp_common/dvp/conditions.py": "the table itself, checked both ways by Checker.table",
        "images/dvp-common/dvp_common/dvp/errors.py": "error classes named after DVP's reasons"}
_NAME = re.compile(r"^(DVP_(?!STATUS_)\w+|\w*REASONS?\w*|\w*PHASES?|\w*FINISHED\w*)$")
_COLLECTIONS = {"frozenset", "set", "tuple", "list"}


def _strs(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strs(e)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _COLLECTIONS:
        return [s for a in node.args for s in _strs(a)]
    return []


# functions that read a DVP condition by type (and reason): their string arguments are DVP's
CONDITION_READERS = {"condition", "dvp_condition", "_condition", "_false"}


def _called(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else \
        node.func.attr if isinstance(node.func, ast.Attribute) else ""


def component_strings(top: Path = TOP) -> Iterator[Found]:
    for root in COMPONENT_ROOTS:
        for path in sorted((top / root).rglob("*.py")):
            rel = path.relative_to(top).as_posix()
            if rel in OURS or "/generated/" in rel or path.name.endswith("_test.py"):
                continue
            yield from _module_strings(rel, ast.parse(path.read_text()))


def _module_strings(rel: str, tree: ast.Module) -> Iterator[Found]:
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names = [t.id for t in (target.elts if isinstance(target, ast.Tuple) else [target])
                         if isinstance(t, ast.Name)]
                if any(_NAME.match(n) for n in names):
                    what = "phase" if any("PHASE" in n or "FINISHED" in n for n in names) else "any"
                    for value in _strs(node.value):
                        yield Found(f"{rel}:{node.lineno}", what, value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) in CONDITION_READERS and len(node.args) > 1:
            for value in _strs(node.args[1]):  # condition(obj, "Type"[, "Reason"])
                yield Found(f"{rel}:{node.lineno}", "type", value)
            for arg in node.args[2:]:
                for value in _strs(arg):
                    yield Found(f"{rel}:{node.lineno}", "any", value)
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any("reason" in ast.unparse(s).lower() and not _strs(s) for s in sides):
                for side in sides:
                    for value in _strs(side):
                        yield Found(f"{rel}:{node.lineno}", "any", value)


# candi
_TF_LIST = re.compile(r"\w*(?:reasons|types)\s*=\s*\[(.*?)\]", re.DOTALL)
_TF_CMP = re.compile(r"\b(?:c|cond)\.(?:reason|type)\s*==\s*\"([^\"]+)\"")
_TF_FIXTURE = re.compile(r"type\s*=\s*\"([A-Za-z]+)\",\s*status\s*=\s*\"\w+\",\s*reason\s*=\s*\"([A-Za-z]+)\"")


def candi_strings(top: Path = TOP) -> Iterator[Found]:
    base = top / "candi" / "terraform-modules"
    for path in sorted([*base.rglob("*.tf"), *base.rglob("*.tftest.hcl")]):
        rel = path.relative_to(top).as_posix()
        text = path.read_text()
        for m in _TF_LIST.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            for value in re.findall(r"\"([^\"]+)\"", m.group(1)):
                yield Found(f"{rel}:{line}", "any", value)
        for m in _TF_CMP.finditer(text):
            yield Found(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}", "any", m.group(1))
        for m in _TF_FIXTURE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            yield Found(f"{rel}:{line}", "type", m.group(1))
            yield Found(f"{rel}:{line}", "reason", m.group(2), m.group(1))


def run(top: Path = TOP, root: Path = UPSTREAM) -> Report:
    """The whole check: one report of every string checked and every problem found."""
    checker = Checker(load(D.API_VERSION, root), load(D.OLD_API_VERSION, root))
    total = checker.table()
    found = [*simulator_writes(top), *contract_strings(top / "sim" / "CONTRACT.md"), *component_strings(top),
             *candi_strings(top)]
    unreadable = [f"{f.where}: cannot read the condition written by {f.value}" for f in found
                  if f.what == "unreadable"]
    part = checker.check(f for f in found if f.what != "unreadable")
    total.checked += part.checked + len(unreadable)
    total.problems += unreadable + part.problems
    return total

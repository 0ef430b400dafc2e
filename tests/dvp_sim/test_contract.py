# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""CONTRACT.md names, for every rule, the tests that show the simulator enforces it: each named test exists.

A table's header says which file an unqualified name lives in (`test (`test_schema.py` unless named)`); a name
`file.py::test_x` points into another file of tests/dvp_sim; a bare `file.py` means every test of that file."""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTRACT = HERE.parents[1] / "sim" / "CONTRACT.md"  # beside the simulator it describes
ROW = re.compile(r"^\| ([SACG]\d+) \|")
TICKED = re.compile(r"`([^`]+)`")


def defined_tests(file: str) -> set[str]:
    path = HERE / file
    assert path.is_file(), f"CONTRACT.md names {file}, which tests/dvp_sim does not have"
    tree = ast.parse(path.read_text())
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def rows() -> list[tuple[str, str | None, list[str]]]:
    """(rule id, the table's default file, the names in the row's last cell)."""
    out: list[tuple[str, str | None, list[str]]] = []
    default: str | None = None
    for line in CONTRACT.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| id |"):
            named = TICKED.findall(cells[-1])
            default = named[0] if named else None
        elif ROW.match(line):
            out.append((cells[0], default, TICKED.findall(cells[-1])))
    return out


def test_the_contract_has_its_rules():
    ids = [rule for rule, _, _ in rows()]
    assert len(ids) == len(set(ids)), "a rule id is used twice"
    assert {i[0] for i in ids} == {"S", "A", "C", "G"}
    for prefix in "SACG":
        numbers = [int(i[1:]) for i in ids if i[0] == prefix]
        assert numbers == list(range(1, len(numbers) + 1)), f"{prefix} rules are not numbered 1..n in order"


def test_every_rule_names_tests_that_exist():
    missing = []
    for rule, default, names in rows():
        assert names, f"{rule}: names no test"
        for name in names:
            file, _, test = name.rpartition("::") if "::" in name else ("", "", name)
            if name.endswith(".py"):
                assert defined_tests(name), f"{rule}: {name} has no test"
                continue
            file = file or default
            assert file, f"{rule}: {name} needs its file (the table has no default)"
            if test not in defined_tests(file):
                missing.append(f"{rule}: {file}::{test}")
    assert missing == []

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The layering (DEVELOPMENT.md, "Layering"): import-linter's contracts in .importlinter, plus what import-linter
cannot see: hook scripts are modules, not a package, and bench's rule is about where a module lives."""

from __future__ import annotations

import ast
import configparser
import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOTS = [str(ROOT / p) for p in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
    "ini_options"]["pythonpath"]]
COMPONENTS = {"capdvp", "dvp_ccm", "cloud_data_discoverer", "dvp_webhooks", "dvp_csi", "dvp_validator"}
HOOK_SCRIPTS = {p.stem for p in (ROOT / "hooks").glob("*.py")}  # top-level modules where hooks/ is on the path


def test_import_linter_contracts_are_kept():
    tool = Path(sys.executable).with_name("lint-imports")
    assert tool.exists(), f"{tool} is missing: run `make venv` (import-linter is pinned in requirements.lock)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(ROOTS)}
    proc = subprocess.run([str(tool), "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def _lines(value: str) -> set[str]:
    return {line.split(";")[0].strip() for line in value.splitlines()} - {""}


def test_a_contract_forbids_every_component_and_dvp_common_to_import_the_hooks_lib():
    """hooks -> dvp_common, never back: the contract is there, not only kept (a dropped contract breaks nothing)."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    forbidding = [name for name in config.sections() if name.startswith("importlinter:contract:")
                  and config[name].get("type") == "forbidden"
                  and "lib" in _lines(config[name].get("forbidden_modules", ""))
                  and COMPONENTS | {"dvp_common"} <= _lines(config[name].get("source_modules", ""))]
    assert forbidding, ".importlinter has no forbidden contract keeping every component and dvp_common off lib"
    roots = _lines(config["importlinter"]["root_packages"])
    assert COMPONENTS | {"dvp_common", "lib"} <= roots, "a package the contract names is not analysed"


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every absolute import in the file, function-level ones too."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.module, [alias.name for alias in node.names]))
    return out


def test_hook_scripts_import_no_component():
    scripts = [p for p in sorted((ROOT / "hooks").glob("*.py")) if not p.name.endswith("_test.py")]
    assert scripts
    found = {f"{p.name}: {module}" for p in scripts for module, _ in _imports(p) if module.split(".")[0] in COMPONENTS}
    assert found == set()


def test_no_component_or_dvp_common_imports_a_hook_script():
    """What import-linter cannot see: a hook script is a module of hooks/, not of a package."""
    packages = [path for root in ROOTS for path in Path(root).iterdir()
                if path.name in COMPONENTS | {"dvp_common"} and (path / "__init__.py").is_file()]
    assert {p.name for p in packages} == COMPONENTS | {"dvp_common"}
    found = {f"{path.relative_to(ROOT)}: {module}" for package in packages for path in sorted(package.rglob("*.py"))
             if "generated" not in path.parts
             for module, _ in _imports(path) if module.split(".")[0] in HOOK_SCRIPTS | {"lib"}}
    assert found == set()


def _locations(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    if spec is None:
        return []
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        return [Path(spec.origin)]
    return [Path(p) for p in spec.submodule_search_locations or []]


def test_bench_imports_nothing_from_tests(monkeypatch):
    """bench and tests share code only through testkit/ (and the sources): a test may change freely."""
    for root in reversed(ROOTS):
        monkeypatch.syspath_prepend(root)
    monkeypatch.syspath_prepend(str(ROOT))  # bench/ is a package at the top (`make bench` runs `python -m bench`)
    tests = ROOT / "tests"
    offending = set()
    for path in sorted((ROOT / "bench").glob("*.py")):
        assert '"tests"' not in path.read_text(), f"{path.name} puts tests/ on the import path"
        for module, names in _imports(path):
            candidates = [module]
            if any(loc.is_dir() for loc in _locations(module)):  # a package: the names may be its modules
                candidates += [f"{module}.{n}" for n in names if importlib.util.find_spec(module) is not None]
            for name in candidates:
                try:
                    where = _locations(name)
                except (ImportError, ValueError):
                    continue  # a name that is not a module (a class, a function)
                offending |= {f"{path.name}: {name} ({loc.relative_to(ROOT)})" for loc in where
                              if loc.is_relative_to(tests)}
    assert offending == set()

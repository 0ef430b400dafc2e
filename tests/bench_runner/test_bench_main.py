# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""bench/__main__.py: one JSON line per figure; a broken benchmark module is named on stderr and fails the run."""

from __future__ import annotations

import io
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

GOOD = '''
def figures():
    yield {"figure": "render", "value": 12.5, "unit": "ms", "goal": "<= 100"}
    yield {"figure": "hook --config", "value": 30, "unit": "ms", "goal": None}
'''
BROKEN_IMPORT = "import no_such_module_here\n"
BAD_SHAPE = 'def figures():\n    return [{"figure": "x", "value": "fast", "unit": "ms", "goal": 1}]\n'
NO_FIGURES = "X = 1\n"


@pytest.fixture
def runner(tmp_path, monkeypatch):
    pkg = tmp_path / "fakebench"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, body in {"a_good": GOOD, "b_import": BROKEN_IMPORT, "c_shape": BAD_SHAPE,
                       "d_none": NO_FIGURES}.items():
        (pkg / f"{name}.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(ROOT))
    for mod in [m for m in sys.modules if m == "fakebench" or m.startswith("fakebench.")]:
        monkeypatch.delitem(sys.modules, mod)
    import importlib

    main = importlib.import_module("bench.__main__")
    return main, pkg


def test_figures_are_printed_as_json_lines(runner):
    main, _ = runner
    out, err = io.StringIO(), io.StringIO()
    assert main.run(["a_good"], package="fakebench", out=out, err=err) == 0
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [
        {"figure": "render", "value": 12.5, "unit": "ms", "goal": "<= 100"},
        {"figure": "hook --config", "value": 30, "unit": "ms", "goal": None},
    ]
    assert err.getvalue() == ""


def test_each_broken_module_gets_one_error_line_and_the_rest_still_runs(runner):
    main, pkg = runner
    out, err = io.StringIO(), io.StringIO()
    assert main.run(main.areas(pkg), package="fakebench", out=out, err=err) == 1
    assert len(out.getvalue().splitlines()) == 2
    assert err.getvalue().splitlines() == [
        "bench: fakebench.b_import failed: ModuleNotFoundError: No module named 'no_such_module_here'",
        "bench: fakebench.c_shape failed: ValueError: figure 'x': value 'fast' is not a number",
        "bench: fakebench.d_none failed: AttributeError: no figures() function",
    ]


def test_areas_skip_the_runner_and_helpers(runner):
    main, _ = runner
    assert "measure" not in main.areas() and "__main__" not in main.areas()


def test_unknown_area_is_refused():
    proc = subprocess.run([sys.executable, "-m", "bench", "nope"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("bench: unknown area(s) nope; known: ")


def test_measure_helpers():
    sys.path.insert(0, str(ROOT))
    try:
        from bench import measure
    finally:
        sys.path.remove(str(ROOT))
    calls = []
    assert measure.median_ms(lambda: calls.append(1), runs=5, warmup=2) >= 0
    assert len(calls) == 7
    assert measure.process_ms([sys.executable, "-c", "pass"], runs=2) > 0
    with pytest.raises(subprocess.CalledProcessError):
        measure.process_ms([sys.executable, "-c", "raise SystemExit(3)"], runs=1)
    assert measure.figure("f", 1.0, "ms", "<= 2") == {"figure": "f", "value": 1.0, "unit": "ms", "goal": "<= 2"}

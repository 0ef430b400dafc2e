# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""scripts/check-commit-subjects (make lint): no subject over 72 characters after its starting commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-commit-subjects"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=60, check=False)


def test_the_history_since_the_rule_keeps_it():
    res = run()
    assert (res.returncode, res.stderr) == (0, "")


def test_a_longer_subject_is_named():
    first = subprocess.run(["git", "-C", str(ROOT), "rev-list", "--max-parents=0", "HEAD"], capture_output=True,
                           text=True, check=True).stdout.split()[0]
    res = run(first)
    assert res.returncode == 1
    lines = res.stderr.splitlines()
    assert lines[0] == "check-commit-subjects: subjects over 72 characters:"
    assert lines[1:] and all(len(line.split(" ", 1)[1]) > 72 for line in lines[1:])


def test_an_unknown_start_is_one_line():
    res = run("no-such-commit")
    assert (res.returncode, res.stderr) == (1, "check-commit-subjects: no-such-commit is not a commit here\n")

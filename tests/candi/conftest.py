# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures running the real OpenTofu (.bin/tofu) on a copy of candi/ with the provider from the local mirror."""

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CANDI = ROOT / "candi"
TOFU = ROOT / ".bin" / "tofu"
PROVIDER = ROOT / ".bin" / "terraform-provider-kubernetes"


@dataclass(frozen=True)
class Result:
    rc: int
    out: str


@dataclass(frozen=True)
class Tofu:
    env: dict
    candi: Path

    def run(self, cwd: Path, *args: str, timeout: int = 600) -> Result:
        proc = subprocess.run(
            [str(TOFU), *args], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=timeout
        )
        return Result(proc.returncode, proc.stdout + proc.stderr)

    def init(self, cwd: Path) -> None:
        res = self.run(cwd, "init", "-backend=false", "-input=false", "-no-color")
        assert res.rc == 0, res.out


@pytest.fixture(scope="session")
def tofu(tmp_path_factory) -> Tofu:
    for binary, tool in ((TOFU, "tofu"), (PROVIDER, "terraform-provider-kubernetes")):
        if not os.access(binary, os.X_OK):
            pytest.fail(f"{binary} is missing: build it with `tools/build {tool}` (or `make tools`)", pytrace=False)
    config = subprocess.run(
        [str(ROOT / "tools" / "tofu-mirror")], capture_output=True, text=True, check=True
    ).stdout.strip()
    work = tmp_path_factory.mktemp("candi")
    # A copy, so init and test leave no .terraform/ or lock files in the tree and runs never share state.
    candi = Path(shutil.copytree(CANDI, work / "candi", symlinks=True))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "TF_CLI_CONFIG_FILE": config,
        "TF_IN_AUTOMATION": "1",
        "CHECKPOINT_DISABLE": "1",
        "TF_PLUGIN_CACHE_DIR": "",
    }
    return Tofu(env=env, candi=candi)

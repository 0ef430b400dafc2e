# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The real OpenTofu (.bin/tofu) on a private copy of candi/, providers only from the local mirror.
Shared by the tests (conftest.py) and bench/candi.py."""

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CANDI = ROOT / "candi"
TOFU = ROOT / ".bin" / "tofu"
PROVIDER = ROOT / ".bin" / "terraform-provider-kubernetes"


class ToolMissing(RuntimeError):
    pass


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
        if res.rc != 0:
            raise AssertionError(res.out)

    def step(self, work: Path, name: str, variables: dict) -> Path:
        """A private copy of a layout step (its own state), initialised, with terraform.tfvars.json written."""
        top = Path(shutil.copytree(self.candi, work / "candi", symlinks=True, dirs_exist_ok=True))
        cwd = top / "layouts" / "standard" / name
        shutil.rmtree(cwd / ".terraform", ignore_errors=True)
        (cwd / ".terraform.lock.hcl").unlink(missing_ok=True)
        self.init(cwd)
        write_vars(cwd, variables)
        return cwd


def write_vars(cwd: Path, variables: dict) -> None:
    (cwd / "terraform.tfvars.json").write_text(json.dumps(variables))


def prepare(work: Path) -> Tofu:
    """Checks the tools, fills the provider mirror, copies candi/ into `work`."""
    for binary, tool in ((TOFU, "tofu"), (PROVIDER, "terraform-provider-kubernetes")):
        if not os.access(binary, os.X_OK):
            raise ToolMissing(f"{binary} is missing: build it with `tools/build {tool}` (or `make tools`)")
    config = subprocess.run(
        [str(ROOT / "tools" / "tofu-mirror")], capture_output=True, text=True, check=True
    ).stdout.strip()
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

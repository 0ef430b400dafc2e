# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The hooks of an unpacked module, run as shell-operator runs them: every executable file of hooks/ answers
`--config`, and one hook runs with the env-file protocol (binding context, values and config values as JSON files;
values patches and Kubernetes operations as JSON lines), its snapshot cut by its own jqFilter through .bin/gojq.

The interpreter runs with `-S` and only the venv's site-packages on PYTHONPATH (the SDK and the hooks' pinned
dependencies), so the tree's source roots, which the venv's .pth adds, cannot stand in for a file the module image
lacks: `lib` and `dvp_common` come from the unpacked module or not at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

import yaml

from . import SourceError

ROOT = Path(__file__).resolve().parents[2]
GOJQ = ROOT / ".bin" / "gojq"
HOOK = "disable_load_balancer.py"
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "data": {},
             "metadata": {"name": "dvp-cloud-controller-manager-disable-lb", "namespace": "d8-cloud-provider-dvp"}}
# What it must answer with the ConfigMap present: the CCM's LoadBalancer controller off.
EXPECTED_PATCH = {"op": "add", "path": "/cloudProviderDvp/internal/disableLoadBalancer", "value": True}
OUTPUTS = ("VALUES_JSON_PATCH_PATH", "KUBERNETES_PATCH_PATH", "METRICS_PATH")


def _env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": sysconfig.get_paths()["purelib"],
            "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}


def _run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=60)


def _last(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def hook_files(module: Path) -> list[Path]:
    return sorted(p for p in (module / "hooks").iterdir() if p.is_file() and os.access(p, os.X_OK))


def configs(module: Path) -> dict[str, dict]:
    """hook file name -> its --config; a hook that cannot answer names itself."""
    out = {}
    for hook in hook_files(module):
        res = _run([sys.executable, "-S", str(hook), "--config"], _env())
        if res.returncode != 0:
            raise SourceError(f"hooks/{hook.name} --config: exit {res.returncode}: {_last(res.stderr)}")
        config = yaml.safe_load(res.stdout)
        if not isinstance(config, dict) or config.get("configVersion") != "v1":
            raise SourceError(f"hooks/{hook.name} --config: not a configVersion v1 hook config")
        out[hook.name] = config
    if HOOK not in out:
        raise SourceError(f"hooks/{HOOK}: missing or not executable in the module image")
    return out


def _jq(filter_text: str, obj: dict) -> Any:
    if not os.access(GOJQ, os.X_OK):
        raise SourceError(f"{GOJQ} is missing: build it with `tools/build gojq`")
    res = subprocess.run([str(GOJQ), filter_text], input=json.dumps(obj), capture_output=True, text=True,
                         check=False, timeout=30)
    if res.returncode != 0:
        raise SourceError(f"jqFilter {filter_text!r}: {_last(res.stderr)}")
    return json.loads(res.stdout) if res.stdout.strip() else None


def run_one(module: Path, config: dict, values: dict) -> dict[str, list]:
    """Runs hooks/disable_load_balancer.py at beforeHelm with its ConfigMap present; its outputs."""
    snaps = {b["name"]: [{"filterResult": _jq(b["jqFilter"], CONFIGMAP)}] for b in config.get("kubernetes", [])}
    context = [{"binding": "beforeHelm", "snapshots": snaps}]
    module_key = "cloudProviderDvp"
    config_values = {module_key: {k: v for k, v in values.get(module_key, {}).items() if k != "internal"}}
    with tempfile.TemporaryDirectory(prefix="module-source-hook-") as tmp:
        env = _env()
        for var, content in (("BINDING_CONTEXT_PATH", context), ("VALUES_PATH", values),
                             ("CONFIG_VALUES_PATH", config_values)):
            env[var] = os.path.join(tmp, var.lower())
            Path(env[var]).write_text(json.dumps(content))
        for var in OUTPUTS:
            env[var] = os.path.join(tmp, var.lower())
        res = _run([sys.executable, "-S", str(module / "hooks" / HOOK)], env)
        if res.returncode != 0:
            raise SourceError(f"hooks/{HOOK}: exit {res.returncode}: {_last(res.stderr)}")
        out = {}
        for var in OUTPUTS:
            path = Path(env[var])
            lines = path.read_text().splitlines() if path.exists() else []
            out[var] = [json.loads(line) for line in lines if line.strip()]
        return out


def dvp_common_origin(module: Path) -> str:
    """Where the hooks' `dvp.importable()` finds dvp_common in this module (it must be the module's own copy)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from lib import dvp; dvp.importable(); "
            "import dvp_common.kube; print(dvp_common.__file__)")
    res = _run([sys.executable, "-S", "-c", code, str(module / "hooks")], _env())
    if res.returncode != 0:
        raise SourceError(f"hooks/lib/dvp.py: dvp_common does not import from the module: {_last(res.stderr)}")
    return res.stdout.strip()

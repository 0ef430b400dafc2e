# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The hooks of an unpacked module, run as shell-operator runs them: every executable file of hooks/ answers
`--config`, and one hook runs with the env-file protocol (binding context, values and config values as JSON files;
values patches and Kubernetes operations as JSON lines), its snapshot cut by its own jqFilter through .bin/gojq.

The interpreter runs with `-S` and only the venv's site-packages on PYTHONPATH (the SDK and the hooks' pinned
dependencies), so the tree's source roots, which the venv's .pth adds, cannot stand in for a file the module image
lacks: `lib` and `dvp_common` come from the unpacked module or not at all. Each process runs in the sandbox
(sandbox.py: no network, read-only, a deadline): the hooks are code from a registry.

This runner is deliberately not the tests' shell-operator emulation (hooks/lib/testing/): the verifier runs the
pulled files with nothing of the tree."""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

import yaml

from . import SourceError, sandbox

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


def _last(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def hook_files(module: Path) -> list[Path]:
    hooks = module / "hooks"
    if hooks.is_symlink() or not hooks.is_dir():
        raise SourceError("hooks/: missing or not a directory in the module image")
    return sorted(p for p in hooks.iterdir() if p.is_file() and not p.is_symlink() and os.access(p, os.X_OK))


def configs(module: Path) -> dict[str, dict]:
    """hook file name -> its --config; a hook that cannot answer names itself."""
    out = {}
    for hook in hook_files(module):
        what = f"hooks/{hook.name} --config"
        res = sandbox.run(module, [sandbox.interpreter(), "-S", str(hook), "--config"], _env(), what)
        if res.returncode != 0:
            raise SourceError(f"{what}: exit {res.returncode}: {res.last_error_line}")
        try:
            config = yaml.safe_load(res.stdout)
        except yaml.YAMLError:
            config = None
        if not isinstance(config, dict) or config.get("configVersion") != "v1":
            raise SourceError(f"hooks/{hook.name} --config: not a configVersion v1 hook config")
        out[hook.name] = config
    if HOOK not in out:
        raise SourceError(f"hooks/{HOOK}: missing or not executable in the module image")
    return out


def _jq(filter_text: str, obj: dict) -> Any:
    if not os.access(GOJQ, os.X_OK):
        raise SourceError(f"{GOJQ} is missing: build it with `tools/build gojq`")
    try:
        res = subprocess.run([str(GOJQ), filter_text], input=json.dumps(obj), capture_output=True, text=True,
                             check=False, timeout=30)
    except subprocess.TimeoutExpired:
        raise SourceError(f"jqFilter {filter_text!r}: no answer within 30 s") from None
    if res.returncode != 0:
        raise SourceError(f"jqFilter {filter_text!r}: {_last(res.stderr)}")
    try:
        return json.loads(res.stdout) if res.stdout.strip() else None
    except ValueError:
        raise SourceError(f"jqFilter {filter_text!r}: its output is not one JSON value") from None


def run_one(module: Path, config: dict, values: dict) -> dict[str, list]:
    """Runs hooks/disable_load_balancer.py at beforeHelm with its ConfigMap present; its outputs."""
    snaps = {}
    bindings = config.get("kubernetes") or []
    for binding in bindings if isinstance(bindings, list) else [None]:
        if not isinstance(binding, dict) or not isinstance(binding.get("name"), str) \
                or not isinstance(binding.get("jqFilter"), str):
            raise SourceError(f"hooks/{HOOK} --config: kubernetes bindings must be objects with a name and a "
                              f"jqFilter")
        snaps[binding["name"]] = [{"filterResult": _jq(binding["jqFilter"], CONFIGMAP)}]
    context = [{"binding": "beforeHelm", "snapshots": snaps}]
    module_key = "cloudProviderDvp"
    config_values = {module_key: {k: v for k, v in values.get(module_key, {}).items() if k != "internal"}}
    with tempfile.TemporaryDirectory(prefix="module-source-hook-") as tmp:
        env = _env()
        exchange = Path(tmp)
        for var, content in (("BINDING_CONTEXT_PATH", context), ("VALUES_PATH", values),
                             ("CONFIG_VALUES_PATH", config_values)):
            env[var] = os.path.join(tmp, var.lower())
            Path(env[var]).write_text(json.dumps(content))
        for var in OUTPUTS:
            env[var] = os.path.join(tmp, var.lower())
        res = sandbox.run(module, [sandbox.interpreter(), "-S", str(module / "hooks" / HOOK)], env,
                          f"hooks/{HOOK}", exchange)
        if res.returncode != 0:
            raise SourceError(f"hooks/{HOOK}: exit {res.returncode}: {res.last_error_line}")
        return {var: _json_lines(Path(env[var]), var) for var in OUTPUTS}


def _json_lines(path: Path, var: str) -> list:
    """A hook's output file: one JSON value a line (a file it did not write is no output)."""
    if path.is_symlink() or path.exists() and not path.is_file():
        raise SourceError(f"hooks/{HOOK}: {var} is not a regular file")
    out = []
    for line in path.read_text(errors="replace").splitlines() if path.exists() else []:
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                raise SourceError(f"hooks/{HOOK}: {var} has a line that is not JSON") from None
    return out


def dvp_common_origin(module: Path) -> str:
    """Where the hooks' `dvp.importable()` finds dvp_common in this module (it must be the module's own copy)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from lib import dvp; dvp.importable(); "
            "import dvp_common.kube; print(dvp_common.__file__)")
    res = sandbox.run(module, [sandbox.interpreter(), "-S", "-c", code, str(module / "hooks")], _env(),
                      "hooks/lib/dvp.py")
    if res.returncode != 0:
        raise SourceError(f"hooks/lib/dvp.py: dvp_common does not import from the module: {res.last_error_line}")
    return res.stdout.strip()

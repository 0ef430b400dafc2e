# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Test support for hooks: production-shaped binding contexts and a shell-operator-style process runner.

Snapshots are built the way shell-operator builds them with keepFullObjectsInMemory: false: the binding's own
jqFilter (from the hook's config) is run by gojq, the jq shell-operator embeds, over a full Kubernetes object,
and only {"filterResult": ...} is kept. So a test cannot feed a hook data its filter would not deliver."""

import base64
import functools
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import jsonpatch
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GOJQ = os.path.join(ROOT, ".bin", "gojq")


def read(*parts: str) -> str:
    """A file of the module, by path parts under the module root."""
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def hook_config(module) -> dict:
    return yaml.safe_load(module.config)


def binding(module, name: str) -> dict:
    for b in hook_config(module).get("kubernetes", []):
        if b["name"] == name:
            return b
    raise KeyError(f"{module.__name__} has no kubernetes binding {name}")


def jq(filter_text: str, obj: dict):
    # Cached by content: tests build the same snapshots many times, and each gojq run is a process.
    return json.loads(_jq(filter_text, json.dumps(obj, sort_keys=True)))


@functools.lru_cache(maxsize=4096)
def _jq(filter_text: str, obj_json: str) -> str:
    if not os.access(GOJQ, os.X_OK):
        raise RuntimeError(f"{GOJQ} is missing: run 'tools/build gojq' (or 'make tools') before the hook tests")
    out = subprocess.run([GOJQ, filter_text], input=obj_json, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"jqFilter failed: {out.stderr.strip()}")
    lines = out.stdout.splitlines()
    return lines[0] if lines else "null"


def snapshot(module, name: str, *objects: dict) -> list:
    """The snapshot shell-operator delivers for these full objects: [{"filterResult": ...}, ...]."""
    f = binding(module, name)["jqFilter"]
    return [{"filterResult": jq(f, o)} for o in objects]


def snapshots(module, **objects_by_binding) -> dict:
    """All snapshots of a hook (bindings not given are empty, as in a cluster that holds no such objects)."""
    names = [b["name"] for b in hook_config(module).get("kubernetes", [])]
    unknown = set(objects_by_binding) - set(names)
    if unknown:
        raise KeyError(f"unknown bindings {sorted(unknown)}")
    return {n: snapshot(module, n, *objects_by_binding.get(n, ())) for n in names}


def synchronization(module, snaps: dict, name: str | None = None) -> list:
    """A Synchronization binding context for one binding (the first by default) carrying all snapshots."""
    name = name or hook_config(module)["kubernetes"][0]["name"]
    return [{"binding": name, "type": "Synchronization", "objects": snaps[name], "snapshots": snaps}]


def event(module, snaps: dict, name: str, watch_event: str = "Added") -> list:
    items = snaps[name]
    obj = items[-1] if items else {"filterResult": None}
    return [{"binding": name, "type": "Event", "watchEvent": watch_event, **obj, "snapshots": snaps}]


def group(snaps: dict, name: str = "main") -> list:
    """What shell-operator delivers for bindings of one group: the group name and every snapshot."""
    return [{"binding": name, "type": "Group", "snapshots": snaps}]


def before_helm(snaps: dict) -> list:
    return [{"binding": "beforeHelm", "snapshots": snaps}]


def after_helm(snaps: dict) -> list:
    return [{"binding": "afterHelm", "snapshots": snaps}]


def apply(values: dict, patches: list) -> dict:
    return jsonpatch.apply_patch(values, patches)


def secret(namespace: str, name: str, data: dict[str, str], type_: str = "Opaque") -> dict:
    """A full Secret as the API returns it; data values are given as text and stored base64."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace, "uid": "0b6f-" + name, "resourceVersion": "1"},
        "type": type_,
        "data": {k: b64(v) for k, v in data.items()},
    }


def configmap(namespace: str, name: str, data: dict[str, str] | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "uid": "0c6f-" + name, "resourceVersion": "1"},
        "data": data or {},
    }


@dataclass
class ProcessRun:
    returncode: int
    stdout: str
    stderr: str
    values_patches: list
    kube_operations: list
    metrics: list


def run_process(hook_path: str, binding_context: list, values: dict, config_values: dict) -> ProcessRun:
    """Runs the hook file as shell-operator does: JSON files in, JSON-lines files out."""
    with tempfile.TemporaryDirectory() as tmp:
        env = _env()
        for var, content in (
            ("BINDING_CONTEXT_PATH", binding_context),
            ("VALUES_PATH", values),
            ("CONFIG_VALUES_PATH", config_values),
        ):
            env[var] = os.path.join(tmp, var.lower())
            with open(env[var], "w", encoding="utf-8") as f:
                json.dump(content, f)
        outputs = ("VALUES_JSON_PATCH_PATH", "KUBERNETES_PATCH_PATH", "METRICS_PATH")
        for var in outputs:
            env[var] = os.path.join(tmp, var.lower())
        proc = subprocess.run([hook_path], env=env, capture_output=True, text=True, check=False, timeout=60)
        written = []
        for var in outputs:
            lines = read(env[var]).splitlines() if os.path.exists(env[var]) else []
            written.append([json.loads(line) for line in lines if line.strip()])
        return ProcessRun(proc.returncode, proc.stdout, proc.stderr, *written)


def process_config(hook_path: str) -> dict:
    """The config a hook prints for shell-operator's --config handshake."""
    proc = subprocess.run([hook_path, "--config"], env=_env(), capture_output=True, text=True, check=False, timeout=60)
    if proc.returncode != 0:
        raise AssertionError(f"{hook_path} --config failed: {proc.stderr.strip()}")
    return yaml.safe_load(proc.stdout)


def check_bindings(config: dict) -> None:
    """The rules every hook config follows (configVersion v1; each kubernetes binding filtered and slim)."""
    assert config["configVersion"] == "v1"
    for b in config.get("kubernetes", []):
        assert b.get("jqFilter"), f"binding {b['name']} has no jqFilter"
        assert b.get("keepFullObjectsInMemory") is False, f"binding {b['name']} keeps full objects"


def assert_contract(module, hook_path: str, binding_context: list, values: dict, config_values: dict, output):
    """The process run of the hook file emits exactly what hook.testrun of its main emitted."""
    config = process_config(hook_path)
    assert config == hook_config(module)
    check_bindings(config)
    run = run_process(hook_path, binding_context, values, config_values)
    assert run.returncode == 0, run.stderr
    assert run.values_patches == output.values_patches.data
    assert run.kube_operations == output.kube_operations.data
    assert run.metrics == output.metrics.data


def assert_process_rejects(hook_path: str, binding_context: list, values: dict, config_values: dict, message: str):
    """Bad input: exit 1, exactly one stderr line, nothing written."""
    run = run_process(hook_path, binding_context, values, config_values)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [f"invalid input: {message}"]
    assert (run.values_patches, run.kube_operations, run.metrics) == ([], [], [])


def _env() -> dict:
    """The shebang's python3 is this interpreter (the venv), and no *_PATH of the caller leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_PATH")}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


HEAVY = ("yaml", "jsonschema", "cryptography", "kubernetes", "requests")


def fresh_run(module, binding_context: list, values: dict) -> tuple[list, list, list[str]]:
    """hook.testrun of the hook's main in a new interpreter: (values patches, kube operations, heavy modules
    it imported). Steady-state runs must not pay for YAML, schema or crypto imports."""
    script = (
        "import json, sys\n"
        f"sys.path.insert(0, {os.path.join(ROOT, 'hooks')!r})\n"
        f"import {module.__name__} as h\n"
        "from deckhouse import hook\n"
        "bc, values = json.load(sys.stdin)\n"
        "out = hook.testrun(h.main, binding_context=bc, config_values={}, initial_values=values)\n"
        f"heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
        "print(json.dumps([out.values_patches.data, out.kube_operations.data, heavy]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], input=json.dumps([binding_context, values]),
                          capture_output=True, text=True, check=False, timeout=60)
    if proc.returncode != 0:
        raise AssertionError(proc.stderr)
    return tuple(json.loads(proc.stdout))

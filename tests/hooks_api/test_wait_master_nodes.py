# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""wait_master_nodes_initialized against the real guest API: the hook process waits until the taint is gone."""

import json
import os
import secrets
import subprocess

import pytest
import wait_master_nodes_initialized as hook
from deckhouse import hook as sdk
from dvp_common.kube.resources import NODE
from lib import testing as t

from demo.hook_runner import _selector

PATH = os.path.join(t.ROOT, "hooks", "wait_master_nodes_initialized.py")


@pytest.fixture
def kubeconfig(guest_api, tmp_path):
    path = tmp_path / "kubeconfig"
    path.write_text(guest_api.kubeconfig())
    return str(path)


def make_node(client, name: str, master: bool, tainted: bool) -> dict:
    labels = {hook.MASTER_LABEL: ""} if master else {}
    taints = [{"key": hook.TAINT, "value": "true", "effect": "NoSchedule"}] if tainted else []
    return client.create(NODE, {"apiVersion": "v1", "kind": "Node",
                                "metadata": {"name": name, "labels": labels}, "spec": {"taints": taints}})


def snapshots(client, names: list[str]) -> dict:
    """The hook's snapshot of these Nodes as the real API serves them under the binding's selector."""
    selector = _selector(t.binding(hook, hook.SNAPSHOT)["labelSelector"])
    served = [n for n in client.list(NODE, label_selector=selector).items if n["metadata"]["name"] in names]
    return t.snapshots(hook, master_nodes=[n | {"apiVersion": "v1", "kind": "Node"} for n in served])


def run_env(tmp_path, kubeconfig: str, snaps: dict) -> dict:
    env = t._env() | {"KUBECONFIG": kubeconfig}
    for var, content in (("BINDING_CONTEXT_PATH", t.after_helm(snaps)), ("VALUES_PATH", {}),
                         ("CONFIG_VALUES_PATH", {})):
        env[var] = str(tmp_path / var.lower())
        (tmp_path / var.lower()).write_text(json.dumps(content))
    for var in ("VALUES_JSON_PATCH_PATH", "KUBERNETES_PATCH_PATH", "METRICS_PATH"):
        env[var] = str(tmp_path / var.lower())
    return env


def test_hook_waits_until_every_master_is_initialized(guest_api, kubeconfig, tmp_path):
    client = guest_api.client()
    suffix = secrets.token_hex(3)
    masters = [f"master-{i}-{suffix}" for i in range(2)]
    for name in masters:
        make_node(client, name, master=True, tainted=True)
    make_node(client, f"worker-{suffix}", master=False, tainted=True)
    snaps = snapshots(client, [*masters, f"worker-{suffix}"])
    assert sorted(s["filterResult"]["name"] for s in snaps[hook.SNAPSHOT]) == masters  # the worker is not selected

    proc = subprocess.Popen([PATH], env=run_env(tmp_path, kubeconfig, snaps), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        client.patch(NODE, masters[1], {"spec": {"taints": []}})
        assert proc.poll() is None  # masters[0] is still tainted: the hook is waiting, not done or failed
        client.patch(NODE, masters[0], {"spec": {"taints": [{"key": "other", "effect": "NoSchedule"}]}})
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    for var in ("values_json_patch_path", "kubernetes_patch_path", "metrics_path"):
        assert not (tmp_path / var).exists() or (tmp_path / var).read_text() == ""


def test_bounded_wait_names_the_nodes_still_tainted(guest_api):
    client = guest_api.client()
    suffix = secrets.token_hex(3)
    tainted, clean, gone = f"master-t-{suffix}", f"master-c-{suffix}", f"master-g-{suffix}"
    make_node(client, tainted, master=True, tainted=True)
    make_node(client, clean, master=True, tainted=False)
    assert hook.wait_initialized(client, [gone, tainted, clean], timeout=1) == [tainted]
    assert hook.wait_initialized(client, [clean, gone], timeout=1) == []


def test_timeout_fails_the_run_with_one_line_and_writes_nothing(guest_api, kubeconfig, monkeypatch):
    client = guest_api.client()
    name = f"master-x-{secrets.token_hex(3)}"
    make_node(client, name, master=True, tainted=True)
    monkeypatch.setattr(hook, "TIMEOUT", 1.0)
    monkeypatch.setenv("KUBECONFIG", kubeconfig)
    with pytest.raises(SystemExit) as exc:
        sdk.testrun(hook.main, binding_context=t.after_helm(snapshots(client, [name])), config_values={},
                    initial_values={})
    assert str(exc.value.code) == (
        f"master Nodes not initialized after 1s: {name} still have the taint "
        "node.cloudprovider.kubernetes.io/uninitialized (the cloud-controller-manager initializes them; see its logs)")

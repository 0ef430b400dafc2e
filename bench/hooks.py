# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Hook process times, as shell-operator pays them: `<hook> --config` and one run over a typical
Synchronization binding context (median of 20), next to a bare `python -c 'import deckhouse.hook'`.

Issue 4's goal is a median run of at most 80 ms per hook."""

from __future__ import annotations

import datetime
import importlib
import json
import os
import sys
import tempfile

from bench.measure import figure, process_ms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOOKS = os.path.join(ROOT, "hooks")
RUNS = 20
GOAL_MS = 80


def _lib():
    if HOOKS not in sys.path:
        sys.path.insert(0, HOOKS)
    from lib import migration_fixtures, testing, tls

    return testing, migration_fixtures, tls


def _cases() -> dict[str, tuple[dict, dict]]:
    """hook name -> (objects by binding, values): what a steady-state cluster delivers."""
    t, f, tls = _lib()
    values = {"global": {"discovery": {"clusterDomain": "cluster.local"}},
              "cloudProviderDvp": {"internal": {"providerDiscoveryData": {"zones": ["default"], "storageClasses": [
                  {"name": f"sc-{i}", "reclaimPolicy": "Delete", "allowVolumeExpansion": True, "isDefault": i == 0}
                  for i in range(10)]}}}}
    cases: dict[str, tuple[dict, dict]] = {
        "credentials": ({"credentials": [f.credentials() | {"data": {
            "authScheme": t.b64("kubeconfig"), "secret": t.b64(f.KUBECONFIG_B64)}}]}, values),
        "discovery_data": ({"discoverer": [t.secret("kube-system", "d8-cloud-provider-discovery-data", {
            "discovery-data.json": json.dumps(values["cloudProviderDvp"]["internal"]["providerDiscoveryData"])})]},
            values),
        "storage_classes": ({"storage_classes": [
            {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "csi.dvp.deckhouse.io",
             "metadata": {"name": f"sc-{i}", "labels": {"module": "cloud-provider-dvp"}},
             "parameters": {"dvpStorageClass": f"sc-{i}"}, "volumeBindingMode": "WaitForFirstConsumer",
             "reclaimPolicy": "Delete", "allowVolumeExpansion": True} for i in range(10)]}, values),
        "disable_load_balancer": ({"disable_lb_configmap": [
            t.configmap("d8-cloud-provider-dvp", "dvp-cloud-controller-manager-disable-lb")]}, values),
        "cni_configuration": ({"cni_configuration": [t.secret("kube-system", "d8-cni-configuration", {
            "cni": "cilium", "cilium": '{"mode":"VXLAN"}'})]}, values),
        "ensure_crds": ({"crds": []}, values),
        "legacy_cluster_configuration": ({"legacy_cluster_configuration": [f.pcc_secret()]}, values),
        "migration_resources": ({"legacy_cluster_configuration": [f.pcc_secret()]}, values),
    }
    now = datetime.datetime.now(datetime.UTC)
    for name in ("capdvp_webhook_certificate", "validation_webhook_certificate", "snapshot_webhook_certificate"):
        spec = importlib.import_module(name).CERT
        bundle = tls.issue(spec, spec.names("cluster.local"), now)
        secret = t.secret(spec.namespace, spec.secret, {"tls.crt": bundle["crt"], "tls.key": bundle["key"],
                                                        "ca.crt": bundle["ca"]}, "kubernetes.io/tls")
        steady = json.loads(json.dumps(values))
        steady["cloudProviderDvp"]["internal"][spec.value] = bundle
        cases[name] = ({"tls_secret": [secret]}, steady)
    return cases


def _run_env(tmp: str, name: str, objects: dict, values: dict) -> dict:
    t, _, _ = _lib()
    module = importlib.import_module(name)
    snaps = t.snapshots(module, **objects)
    files = {"BINDING_CONTEXT_PATH": t.synchronization(module, snaps), "VALUES_PATH": values,
             "CONFIG_VALUES_PATH": {}}
    env = t._env()
    for var, content in files.items():
        env[var] = os.path.join(tmp, f"{name}.{var.lower()}")
        with open(env[var], "w") as fh:
            json.dump(content, fh)
    for var in ("VALUES_JSON_PATCH_PATH", "KUBERNETES_PATCH_PATH", "METRICS_PATH"):
        env[var] = os.devnull
    return env


def figures() -> list[dict]:
    out = [figure("hooks.baseline.import_deckhouse_hook", process_ms([sys.executable, "-c", "import deckhouse.hook"],
                                                                     runs=RUNS), "ms")]
    t, _, _ = _lib()
    with tempfile.TemporaryDirectory() as tmp:
        for name, (objects, values) in _cases().items():
            path = os.path.join(HOOKS, f"{name}.py")
            out.append(figure(f"hooks.{name}.config", process_ms([path, "--config"], runs=RUNS, env=t._env()), "ms"))
            env = _run_env(tmp, name, objects, values)
            out.append(figure(f"hooks.{name}.run", process_ms([path], runs=RUNS, env=env), "ms", f"<= {GOAL_MS}"))
    return out


run = figures

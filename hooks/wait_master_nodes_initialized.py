#!/usr/bin/env python3
# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""After Helm: waits (bounded) until no master Node carries the taint node.cloudprovider.kubernetes.io/uninitialized,
i.e. the cloud-controller-manager the release just rolled out has initialised every control-plane node. Until
then the module run fails with one line naming the Nodes, and Deckhouse retries it.

The snapshot tells whether there is anything to wait for; only then does the hook open the guest API (the pod's
ServiceAccount, or the kubeconfig file in KUBECONFIG) and watch those Nodes."""

import os
import sys

from lib import bindings, dvp
from lib.errors import one_line
from lib.hookrun import run
from lib.snapshots import results

SNAPSHOT = "master_nodes"
MASTER_LABEL = "node-role.kubernetes.io/master"
TAINT = "node.cloudprovider.kubernetes.io/uninitialized"
TIMEOUT = 120.0  # seconds, for all the Nodes together

config = bindings.render({
    "afterHelm": 10,
    "kubernetes": [
        bindings.kubernetes(
            SNAPSHOT, "Node",
            f'{{name: .metadata.name, uninitialized: ([.spec.taints[]? | select(.key == "{TAINT}")] | length > 0)}}',
            labelSelector={"matchExpressions": [{"key": MASTER_LABEL, "operator": "Exists"}]},
            executeHookOnEvent=[], executeHookOnSynchronization=False,
        ),
    ],
})


def uninitialized(node: dict | None) -> bool:
    """A Node still waiting for its cloud provider (a deleted Node waits for nothing)."""
    return node is not None and any(t.get("key") == TAINT for t in (node.get("spec") or {}).get("taints") or [])


def wait_initialized(client, names: list[str], timeout: float) -> list[str]:
    """Watches each Node until it is initialised, all within one deadline; the names still waiting when it
    passes (empty when none)."""
    import time

    from dvp_common.kube import NotFound, WaitTimeout
    from dvp_common.kube.resources import NODE

    def still_waiting(name: str) -> bool:
        try:
            return uninitialized(client.get(NODE, name))
        except NotFound:
            return False

    deadline = time.monotonic() + timeout
    for i, name in enumerate(names):
        try:
            client.wait_for(NODE, name, lambda node: not uninitialized(node), max(0.0, deadline - time.monotonic()))
        except WaitTimeout:
            return [n for n in names[i:] if still_waiting(n)]
    return []


def main(ctx) -> None:
    waiting = sorted(n["name"] for n in results(ctx, SNAPSHOT)
                     if n.get("uninitialized") is True and isinstance(n.get("name"), str))
    if not waiting:
        return
    dvp.importable()
    from dvp_common.kube import KubeClient, KubeError

    try:
        client = KubeClient.from_file_or_service_account(os.environ.get("KUBECONFIG", ""))
        try:
            still = wait_initialized(client, waiting, TIMEOUT)
        finally:
            client.close()
    except (KubeError, OSError) as exc:  # an unreadable KUBECONFIG too; the run fails in one line, Deckhouse retries
        sys.exit(one_line(f"master Nodes {', '.join(waiting)}: cannot watch them in the cluster API: {exc}", 1024))
    if still:
        sys.exit(one_line(f"master Nodes not initialized after {TIMEOUT:g}s: {', '.join(still)} still have the "
                          f"taint {TAINT} (the cloud-controller-manager initializes them; see its logs)", 1024))


if __name__ == "__main__":
    run(main, config)

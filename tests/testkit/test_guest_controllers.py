# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The guest's own control plane (harness.guest_controllers) does what a cluster's does, on its own server."""

from __future__ import annotations

import pytest
from dvp_common.kube import Resource, WaitTimeout

from testkit.harness import guest_controllers as gc
from testkit.harness.processes import HarnessError

CONFIG_MAP = Resource("", "v1", "configmaps", "ConfigMap")
NAMESPACE = Resource("", "v1", "namespaces", "Namespace", namespaced=False)
WAIT_S = 60.0


def test_kwok_keeps_a_registered_node_ready_and_the_lifecycle_controller_taints_it_when_heartbeats_stop(
        guest_controllers):
    client = guest_controllers.server.client()
    try:
        node = gc.register_node(client, "kwok-lifecycle", uninitialized=True)
        # (the lifecycle controller's not-ready taint may still be there from before kwok's first heartbeat)
        assert {"key": gc.UNINITIALIZED, "value": "true", "effect": "NoSchedule"} in node["spec"]["taints"]
        assert node["status"]["allocatable"]["cpu"] == "4"
        # kwok stops managing it (as if the VM stopped): the node lifecycle controller marks it unreachable
        client.patch(gc.NODE, "kwok-lifecycle", {"metadata": {"labels": {gc.KWOK_LABEL: None}}})

        def unreachable(n):
            ready = next(c for c in n["status"]["conditions"] if c["type"] == "Ready")
            return ready["status"] == "Unknown" and any(
                t["key"] == "node.kubernetes.io/unreachable" for t in n["spec"].get("taints") or [])
        try:
            client.wait_for(gc.NODE, "kwok-lifecycle", unreachable, WAIT_S)
        except WaitTimeout as exc:
            raise AssertionError(f"{exc}\n{guest_controllers.logs()}") from None
    finally:
        client.delete(gc.NODE, "kwok-lifecycle")
        client.close()


def test_garbage_collection_and_namespace_deletion_run(guest_controllers):
    client = guest_controllers.server.client()
    try:
        ns = guest_controllers.server.create_namespace("gc")
        owner = client.create(CONFIG_MAP, {"metadata": {"name": "owner"}}, ns)
        client.create(CONFIG_MAP, {"metadata": {"name": "dependent", "ownerReferences": [{
            "apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}]}}, ns)
        client.delete(CONFIG_MAP, "owner", ns)
        client.wait_for(CONFIG_MAP, "dependent", lambda obj: obj is None, WAIT_S, ns)
        client.delete(NAMESPACE, ns)
        client.wait_for(NAMESPACE, ns, lambda obj: obj is None, WAIT_S)
    finally:
        client.close()


def test_a_missing_binary_fails_before_anything_starts(control_plane, tmp_path, monkeypatch):
    monkeypatch.setattr(gc, "tool", lambda name: (_ for _ in ()).throw(
        HarnessError(f"{name} is not built: run `make tools`")))
    with pytest.raises(HarnessError, match=r"^kube-controller-manager is not built: run `make tools`$"):
        gc.GuestControllers(control_plane.servers["guest"], control_plane.pki, tmp_path)
    assert list(tmp_path.iterdir()) == []

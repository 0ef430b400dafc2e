# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""network_policies against the real DVP API, with the simulator playing DVP in the project: the hook process
merges the missing rules into the layout's policy, add-only and guarded, and leaves foreign policies alone."""

import base64
import os
import secrets

import network_policies as hook
import pytest
from dvp_common.dvp import DVPConnection, NetworkPolicies
from dvp_common.kube.resources import NETWORK_POLICY
from lib import network_policy as np
from lib import testing as t

from sim import SimConfig, Simulator

PATH = os.path.join(t.ROOT, "hooks", "network_policies.py")
SCHEDULE = [{"binding": "every_minute", "type": "Schedule", "snapshots": {}}]
BASTION = {"from": [{"podSelector": {"matchLabels": {"app": "bastion"}}}], "ports": [{"protocol": "TCP", "port": 22}]}


@pytest.fixture
def project(dvp_api):
    """A fresh project with its own simulator; (admin client, namespace, cluster UUID, values for the hook)."""
    client = dvp_api.client()
    ns = dvp_api.create_namespace("netpol")
    uuid = f"0b6f8a9e-0000-4000-8000-{secrets.token_hex(6)}"
    sim = Simulator(dvp_api.client(), SimConfig(namespace=ns, watch_timeout=1, default_latency=0.02)).start()
    values = {"global": {"discovery": {"clusterUUID": uuid}, "clusterConfiguration": {"cloud": {"prefix": "demo"}}},
              "cloudProviderDvp": {
                  "provider": {"parameters": {"namespace": ns}},
                  "nodes": {"parameters": {"ingressPorts": [22, 6443]}},
                  "internal": {"credentialSecrets": {"d8-credentials": {
                      "authScheme": "kubeconfig",
                      "secret": base64.b64encode(dvp_api.kubeconfig(ns).encode()).decode()}}}}}
    yield client, ns, uuid, values
    sim.stop()
    sim.client.close()
    client.close()


def layout_policy(ns: str, uuid: str, ports, labels: dict | None = None) -> dict:
    """The policy as candi/terraform-modules/network-policy makes it (ports: the ingressPorts of bootstrap)."""
    rules = np.desired(ns, ports)
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "demo-isolated", "namespace": ns, "labels": labels if labels is not None else {
                "deckhouse.io/managed-by": "deckhouse", "dvp.deckhouse.io/cluster-uuid": uuid,
                "dvp.deckhouse.io/component": "dhctl"}},
            "spec": {"podSelector": {"matchLabels": {"dvp.deckhouse.io/cluster-uuid": uuid}},
                     "policyTypes": ["Ingress", "Egress"], **rules}}


def run_hook(values: dict):
    run = t.run_process(PATH, SCHEDULE, values, {})
    assert run.returncode == 0, run.stderr
    assert (run.values_patches, run.kube_operations, run.metrics) == ([], [], [])
    return run


def test_missing_rules_are_added_and_nothing_is_removed(project):
    client, ns, uuid, values = project
    created = layout_policy(ns, uuid, [22])
    created["spec"]["ingress"].append(BASTION)  # someone's rule in the project
    del created["spec"]["egress"][2]  # a rule lost in the project
    before = client.create(NETWORK_POLICY, created, ns)

    run = run_hook(values)
    assert run.stdout.splitlines() == [f"NetworkPolicy {ns}/demo-isolated: added 1 ingress rule(s), 1 egress rule(s)"]
    after = client.get(NETWORK_POLICY, "demo-isolated", ns)
    wanted = np.desired(ns, [22, 6443])
    assert after["spec"]["ingress"] == [*before["spec"]["ingress"], wanted["ingress"][1]]
    assert after["spec"]["egress"] == [*before["spec"]["egress"], wanted["egress"][2]]
    assert after["spec"]["podSelector"] == before["spec"]["podSelector"]
    assert after["metadata"]["labels"] == before["metadata"]["labels"]

    again = run_hook(values)
    assert again.stdout.splitlines() == [f"NetworkPolicy {ns}/demo-isolated: complete"]
    assert client.get(NETWORK_POLICY, "demo-isolated", ns)["metadata"]["resourceVersion"] == \
        after["metadata"]["resourceVersion"]


@pytest.mark.parametrize("labels", [
    {"dvp.deckhouse.io/cluster-uuid": "other-cluster", "dvp.deckhouse.io/component": "dhctl"},
    "no component",
    {},
])
def test_a_policy_that_is_not_ours_is_left_alone(project, labels):
    client, ns, uuid, values = project
    if labels == "no component":
        labels = {"dvp.deckhouse.io/cluster-uuid": uuid}
    before = client.create(NETWORK_POLICY, layout_policy(ns, uuid, [], labels), ns)
    run = run_hook(values)
    assert run.stdout.splitlines() == [f"NetworkPolicy {ns}/demo-isolated: not this cluster's (labels), left alone"]
    assert client.get(NETWORK_POLICY, "demo-isolated", ns) == before


def test_an_absent_policy_is_left_to_the_layout(project):
    client, ns, _, values = project
    run = run_hook(values)
    assert run.stdout.splitlines() == [f"NetworkPolicy {ns}/demo-isolated: absent, left to the layout"]
    assert client.list(NETWORK_POLICY, ns).items == []


def test_a_policy_changed_meanwhile_is_read_again_and_merged(project, dvp_api):
    client, ns, uuid, values = project
    client.create(NETWORK_POLICY, layout_policy(ns, uuid, [22]), ns)
    conn = DVPConnection.from_kubeconfig(dvp_api.kubeconfig(ns), ns, uuid)

    class Racing(NetworkPolicies):
        """The first write loses to an edit made right after our read (resourceVersion precondition: 409)."""
        raced = False

        def patch(self, name, body, current=None):
            if not self.raced:
                self.raced = True
                client.patch(NETWORK_POLICY, name, {"spec": {"ingress": [*current["spec"]["ingress"], BASTION]}}, ns)
            return super().patch(name, body, current)

    naps = []
    message = hook.reconcile(Racing(conn), np.Target(values), sleep=naps.append)
    conn.close()
    assert message == f"NetworkPolicy {ns}/demo-isolated: added 1 ingress rule(s)"
    assert naps == [0.2]
    ingress = client.get(NETWORK_POLICY, "demo-isolated", ns)["spec"]["ingress"]
    assert [np.canonical(r) for r in ingress] == [np.canonical(r) for r in [
        *np.desired(ns, [22])["ingress"], BASTION, np.desired(ns, [22, 6443])["ingress"][1]]]


def test_a_replaced_policy_is_not_written_through_a_stale_read(project, dvp_api):
    client, ns, uuid, values = project
    client.create(NETWORK_POLICY, layout_policy(ns, uuid, [22]), ns)
    conn = DVPConnection.from_kubeconfig(dvp_api.kubeconfig(ns), ns, uuid)
    policies = NetworkPolicies(conn)
    stale = policies.get("demo-isolated")
    client.delete(NETWORK_POLICY, "demo-isolated", ns)
    client.create(NETWORK_POLICY, layout_policy(ns, uuid, []), ns)
    from dvp_common.kube import Conflict

    with pytest.raises(Conflict):
        policies.patch("demo-isolated", {"spec": np.merged(stale["spec"], np.desired(ns, [22, 6443]))}, stale)
    conn.close()
    assert client.get(NETWORK_POLICY, "demo-isolated", ns)["spec"]["ingress"] == np.desired(ns, [])["ingress"]

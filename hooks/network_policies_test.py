# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import os

import network_policies as hook
import pytest
from deckhouse import hook as sdk
from lib import network_policy as np
from lib import testing as t

PATH = os.path.join(os.path.dirname(__file__), "network_policies.py")
SCHEDULE = [{"binding": "every_minute", "type": "Schedule", "snapshots": {}}]
UUID = "0b6f8a9e-0000-4000-8000-000000000001"


def values(**provider) -> dict:
    return {"global": {"discovery": {"clusterUUID": UUID}, "clusterConfiguration": {"cloud": {"prefix": "demo"}}},
            "cloudProviderDvp": {
                "provider": {"parameters": {"namespace": "demo-ns", **provider}},
                "nodes": {"parameters": {"ingressPorts": [22, 6443]}},
                "internal": {"credentialSecrets": {"d8-credentials": {"authScheme": "kubeconfig", "secret": "a2M="}}}}}


def test_config_runs_every_minute_on_its_own_queue():
    assert t.hook_config(hook) == {"configVersion": "v1", "schedule": [
        {"name": "every_minute", "crontab": "* * * * *", "queue": "/modules/cloud-provider-dvp/network-policies"}]}


def test_desired_rules_are_the_layouts():
    ns = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "demo-ns"}}}
    nginx = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "d8-ingress-nginx"}}}
    metallb = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "d8-metallb"}}}
    system = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}
    anywhere = {"ipBlock": {"cidr": "0.0.0.0/0"}}
    assert np.desired("demo-ns", [22, 6443]) == {
        "ingress": [{"from": [ns, nginx, metallb]},
                    {"from": [anywhere],
                     "ports": [{"protocol": "TCP", "port": 22}, {"protocol": "TCP", "port": 6443}]}],
        "egress": [{"to": [ns, nginx, metallb]}, {"to": [anywhere]},
                   {"to": [system], "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}]}
    assert np.desired("demo-ns", [])["ingress"] == [{"from": [ns, nginx, metallb]}]


def test_rules_compare_with_the_api_servers_defaults_and_in_any_order():
    a = {"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 22}, {"protocol": "TCP", "port": 80}]}
    b = {"ports": [{"protocol": "TCP", "port": 80}, {"protocol": "TCP", "port": 22}],
         "from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]}
    assert np.canonical(a) == np.canonical(b)
    assert np.canonical(a) != np.canonical(a | {"ports": [{"protocol": "UDP", "port": 22}]})
    assert np.canonical({"from": [], "ports": [{"port": 1}]}) == np.canonical({"ports": [{"port": 1}]})


def test_merge_adds_only_what_is_missing_and_keeps_everything_else():
    wanted = np.desired("demo-ns", [22, 6443])
    foreign = {"from": [{"podSelector": {"matchLabels": {"app": "bastion"}}}]}
    old_ssh = {"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 22}]}
    spec = {"policyTypes": ["Ingress"], "ingress": [foreign, wanted["ingress"][0], old_ssh],
            "egress": wanted["egress"][::-1]}
    assert np.merged(spec, wanted) == {"ingress": [foreign, wanted["ingress"][0], old_ssh, wanted["ingress"][1]],
                                       "policyTypes": ["Ingress", "Egress"]}
    whole = {"policyTypes": ["Egress", "Ingress"], **wanted}
    assert np.merged(whole, wanted) is None
    assert np.merged({}, wanted) == {**wanted, "policyTypes": ["Ingress", "Egress"]}


@pytest.mark.parametrize(("change", "reason"), [
    (lambda vals: vals["cloudProviderDvp"]["provider"]["parameters"].update(networkPolicy="None"),
     "networkPolicy is None"),
    (lambda vals: vals["cloudProviderDvp"]["internal"].pop("credentialSecrets"), "no DVP credentials yet"),
    (lambda vals: vals["cloudProviderDvp"]["provider"]["parameters"].pop("namespace"),
     "provider.parameters.namespace is not set"),
    (lambda vals: vals["global"].pop("discovery"), "global.discovery.clusterUUID is not known yet"),
    (lambda vals: vals["global"].pop("clusterConfiguration"), "global.clusterConfiguration.cloud.prefix is not known"),
])
def test_nothing_to_do_until_values_say_so(change, reason):
    vals = values()
    change(vals)
    assert np.Target(vals).skip == reason
    out = sdk.testrun(hook.main, binding_context=SCHEDULE, config_values={}, initial_values=vals)
    assert (out.values_patches.data, out.kube_operations.data, out.metrics.data) == ([], [], [])


def test_target_from_values():
    target = np.Target(values())
    assert (target.skip, target.name, target.namespace, target.ingress_ports, target.kubeconfig) == (
        None, "demo-isolated", "demo-ns", [22, 6443], "a2M=")
    vals = values()
    del vals["cloudProviderDvp"]["nodes"]
    assert np.Target(vals).ingress_ports == [22]


def test_isolation_off_runs_without_dvp_and_imports_nothing_heavy():
    vals = values(networkPolicy="None")
    out = sdk.testrun(hook.main, binding_context=SCHEDULE, config_values={}, initial_values=vals)
    t.assert_contract(hook, PATH, SCHEDULE, vals, {}, out)
    assert t.fresh_run(hook, SCHEDULE, vals)[2] == []


def test_unusable_credentials_fail_with_one_line():
    vals = values()
    run = t.run_process(PATH, SCHEDULE, vals, {})
    assert run.returncode == 1
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith("NetworkPolicy demo-ns/demo-isolated: ")
    assert (run.values_patches, run.kube_operations, run.metrics) == ([], [], [])

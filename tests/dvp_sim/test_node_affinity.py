# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The simulator places a VM as DVP places its pod: its nodeSelector and, when given, its required node affinity
(the form a DVPInstanceClass's nodeSelectorTerms take on the VM)."""

from __future__ import annotations

from types import SimpleNamespace

from sim.domain.vms import schedulable

CFG = SimpleNamespace(nodes=("n1", "n2", "n3"), node_labels={
    "n1": {"topology.kubernetes.io/zone": "a", "pool": "gpu", "gen": "5"},
    "n2": {"topology.kubernetes.io/zone": "a", "pool": "cpu", "gen": "3"},
    "n3": {"topology.kubernetes.io/zone": "b", "pool": "gpu"},
})


def vm(node_selector=None, terms=None) -> dict:
    spec: dict = {"nodeSelector": node_selector or {}}
    if terms is not None:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": terms}}}
    return {"spec": spec}


def test_terms_are_ored_requirements_anded_and_the_node_selector_applies_too():
    terms = [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["gpu"]},
                                   {"key": "gen", "operator": "Gt", "values": ["4"]}]},
             {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n3"]}]}]
    assert schedulable(vm(terms=terms), CFG) == ("n1", "n3")
    assert schedulable(vm({"topology.kubernetes.io/zone": "a"}, terms), CFG) == ("n1",)
    assert schedulable(vm(terms=[{"matchExpressions": [{"key": "gen", "operator": "DoesNotExist"}]}]), CFG) == (
        "n3",)
    assert schedulable(vm(terms=[{"matchExpressions": [{"key": "pool", "operator": "NotIn", "values": ["gpu"]}]}]),
                       CFG) == ("n2",)


def test_an_empty_term_matches_no_node_and_no_affinity_leaves_every_node():
    assert schedulable(vm(terms=[{}]), CFG) == ()
    assert schedulable(vm(), CFG) == ("n1", "n2", "n3")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVPInstanceClasses written for Deckhouse's module, against a real kube-apiserver with our CRDs: what its newest
CRD (modules/030-cloud-provider-dvp/crds/instance_class.yaml@21af0b5e2fcf016a7e5e0528b72345dc290008e0) accepts is
stored as sent and renders a DeckhouseMachineTemplate the API accepts, or is refused with one line saying what to
write instead."""

from __future__ import annotations

import copy

import pytest
from dvp_common.kube import Invalid, NotFound, Resource

from capi_templates.test_capi_templates import MINIMAL
from testkit.nodemanager import render_v2

INSTANCE_CLASS = Resource("deckhouse.io", "v1alpha1", "dvpinstanceclasses", "DVPInstanceClass", namespaced=False)
MACHINE_TEMPLATE = Resource("infrastructure.cluster.x-k8s.io", "v1alpha1", "deckhousemachinetemplates",
                            "DeckhouseMachineTemplate")
# The example shape of upstream's CRD at 21af0b5e: a core NodeSelector (matchExpressions and matchFields).
TERMS = [
    {"matchExpressions": [{"key": "node.example.com/pool", "operator": "In", "values": ["a", "b"]},
                          {"key": "spare", "operator": "DoesNotExist"},
                          {"key": "cpu-gen", "operator": "Gt", "values": ["3"]}]},
    {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["dvp-node-3"]}]},
]


def _class(name: str, **vm) -> dict:
    spec = copy.deepcopy(MINIMAL)
    spec["virtualMachine"].update(vm)
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass", "metadata": {"name": name},
            "spec": spec}


@pytest.fixture
def client(guest_api):
    c = guest_api.client()
    yield c
    c.close()


@pytest.mark.parametrize("policy", ["AlwaysSafe", "PreferForced"])
def test_upstream_terms_are_stored_and_render_an_accepted_template(guest_api, client, policy):
    name, ns = f"up-terms-{policy.lower()}", guest_api.create_namespace("up-terms")
    created = client.create(INSTANCE_CLASS, _class(name, liveMigrationPolicy=policy,
                                                   nodeSelector={"nodeSelectorTerms": TERMS}))
    try:
        vm = created["spec"]["virtualMachine"]
        assert (vm["nodeSelector"], vm["liveMigrationPolicy"]) == ({"nodeSelectorTerms": TERMS}, policy)
        template = render_v2(created["spec"])
        template["metadata"] = {"name": name}
        made = client.create(MACHINE_TEMPLATE, template, ns)
        spec = made["spec"]["template"]["spec"]
        assert (spec["nodeSelectorTerms"], spec["liveMigrationPolicy"], "nodeSelector" in spec) == (
            TERMS, policy, False)
    finally:
        client.delete(INSTANCE_CLASS, name)


def test_the_label_map_form_is_still_stored_as_sent(client):
    created = client.create(INSTANCE_CLASS, _class("up-map", nodeSelector={"example.com/rack": "r1", "zone": "a"}))
    try:
        assert created["spec"]["virtualMachine"]["nodeSelector"] == {"example.com/rack": "r1", "zone": "a"}
    finally:
        client.delete(INSTANCE_CLASS, "up-map")


P = "spec.virtualMachine.nodeSelector.nodeSelectorTerms"
# Deckhouse's module lists Manual and Never; DVP's VirtualMachine CRD (virtualization v1.8.0 crds/virtualmachines.yaml)
# takes neither.
LM = ("liveMigrationPolicy: Manual and Never are refused by DVP's VirtualMachine (its CRD takes AlwaysSafe, "
      "PreferSafe, AlwaysForced, PreferForced); set one of those, or leave it out for PreferForced")


@pytest.mark.parametrize(("vm", "image", "message"), [
    ({}, {"kind": "VirtualDisk", "name": "golden"},
     'spec.rootDisk.image.kind: Invalid value: kind: VirtualDisk cannot be a node image (DVP makes a disk '
     "only from an image or a snapshot, and nodes cannot share one boot disk); make a VirtualImage from that disk "
     "(dataSource.objectRef.kind: VirtualDisk) and set kind: VirtualImage and its name"),
    ({"gpus": [{"gpuClassName": "nvidia-h100"}]}, None,
     'spec.virtualMachine.gpus: Invalid value: gpus: not supported by this module yet (DVP passes GPUs '
     "through VirtualMachine spec.gpus behind its GPU feature gate); remove spec.virtualMachine.gpus"),
    ({"liveMigrationPolicy": "Manual"}, None,
     f'spec.virtualMachine.liveMigrationPolicy: Invalid value: {LM}'),
    ({"liveMigrationPolicy": "Never"}, None,
     f'spec.virtualMachine.liveMigrationPolicy: Invalid value: {LM}'),
    ({"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In"}]}]}}, None,
     f'{P}[0].matchExpressions[0]: Invalid value: values: must not be empty for operator In or NotIn'),
    ({"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists",
                                                                     "values": ["x"]}]}]}}, None,
     f'{P}[0].matchExpressions[0]: Invalid value: values: must be empty for operator Exists or '
     "DoesNotExist"),
    ({"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Lt",
                                                                     "values": ["ten"]}]}]}}, None,
     f'{P}[0].matchExpressions[0]: Invalid value: values: must be one integer for operator Gt or Lt'),
    ({"nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.labels", "operator": "In",
                                                                "values": ["n"]}]}]}}, None,
     f'{P}[0].matchFields[0].key: Invalid value: "metadata.labels": {P}[0].matchFields[0].key in body should match '),
    ({"nodeSelector": {"nodeSelectorTerms": []}}, None,
     f"{P}: Invalid value: 0: {P} in body should have at least 1 items"),
])
def test_what_no_vm_of_this_module_can_have_is_refused_in_one_line(client, vm, image, message):
    doc = _class("up-bad", **vm)
    if image:
        doc["spec"]["rootDisk"]["image"] = image
    with pytest.raises(Invalid) as exc:
        client.create(INSTANCE_CLASS, doc)
    assert message in str(exc.value)
    with pytest.raises(NotFound):
        client.get(INSTANCE_CLASS, "up-bad")

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A DVPInstanceClass's nodeSelector in both forms (dvp_common.dvp.node_selector) and the class rule that refuses
what no VM of this module can have (dvp_common.node_groups.class_problems)."""

from __future__ import annotations

import pytest
from dvp_common import node_groups as G
from dvp_common.dvp import node_selector as N

PATH = "spec.virtualMachine.nodeSelector"

# The shape of Deckhouse's module's newest CRD, modules/030-cloud-provider-dvp/crds/instance_class.yaml
# @21af0b5e2fcf016a7e5e0528b72345dc290008e0: spec.virtualMachine.nodeSelector is a core NodeSelector.
UPSTREAM_TERMS = {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "node.example.com/pool", "operator": "In", "values": ["a", "b"]},
                          {"key": "spare", "operator": "DoesNotExist"}]},
    {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["dvp-node-3"]}],
     "matchExpressions": [{"key": "cpu-gen", "operator": "Gt", "values": ["3"]}]},
]}


def test_the_terms_form_is_the_vms_required_node_affinity_as_written():
    labels, terms = N.parse(UPSTREAM_TERMS, PATH)
    assert labels == ()
    assert N.affinity(terms) == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "node.example.com/pool", "operator": "In", "values": ["a", "b"]},
                                  {"key": "spare", "operator": "DoesNotExist"}]},
            {"matchExpressions": [{"key": "cpu-gen", "operator": "Gt", "values": ["3"]}],
             "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["dvp-node-3"]}]},
        ]}}}


def test_the_label_map_form_stays_a_label_map():
    assert N.parse({"zone": "a", "example.com/rack": "r1"}, PATH) == (
        (("example.com/rack", "r1"), ("zone", "a")), ())
    assert N.parse(None, PATH) == ((), ())
    assert N.parse({}, PATH) == ((), ())
    assert N.affinity(()) is None


def test_an_empty_term_is_kept_it_matches_no_node_as_for_a_pod():
    _, terms = N.parse({"nodeSelectorTerms": [{}]}, PATH)
    assert N.affinity(terms) == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{}]}}}


@pytest.mark.parametrize(("value", "message"), [
    ({"rack": "r1", "nodeSelectorTerms": [{}]},
     f"{PATH}: label keys (rack) next to nodeSelectorTerms; write them as matchExpressions (operator In) of every "
     "term, or use only the label map"),
    ({"nodeSelectorTerms": []}, f"{PATH}.nodeSelectorTerms: must hold at least one term"),
    ({"nodeSelectorTerms": {"matchExpressions": []}},
     f"{PATH}.nodeSelectorTerms: must be a list of node selector terms"),
    ({"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In"}]}]},
     f"{PATH}.nodeSelectorTerms[0].matchExpressions[0].values: must not be empty for operator In"),
    ({"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}]},
     f"{PATH}.nodeSelectorTerms[0].matchExpressions[0].values: must be empty for operator Exists"),
    ({"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Lt", "values": ["ten"]}]}]},
     f"{PATH}.nodeSelectorTerms[0].matchExpressions[0].values: must be one integer for operator Lt"),
    ({"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Near", "values": ["x"]}]}]},
     f"{PATH}.nodeSelectorTerms[0].matchExpressions[0].operator: 'Near' is not one of In, NotIn, Exists, "
     "DoesNotExist, Gt, Lt"),
    ({"nodeSelectorTerms": [{"matchExpressions": [{"key": "bad key", "operator": "Exists"}]}]},
     f"{PATH}.nodeSelectorTerms[0].matchExpressions[0].key: 'bad key' is not a label key (a name of at most 63 "
     "of [A-Za-z0-9-_.], alphanumeric ends)"),
    ({"nodeSelectorTerms": [{}, {"matchFields": [{"key": "metadata.labels", "operator": "In", "values": ["n"]}]}]},
     f"{PATH}.nodeSelectorTerms[1].matchFields[0].key: 'metadata.labels' is not a node field; only metadata.name is"),
    ({"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}]},
     f"{PATH}.nodeSelectorTerms[0].matchFields[0].operator: 'Exists' is not one of In, NotIn"),
    ({"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]},
     f"{PATH}.nodeSelectorTerms[0].matchFields[0].values: must hold exactly one node name"),
    ({"zone": 1}, f"{PATH}.zone: must be a string, got int"),
    ({"Bad/zone": "a"}, f"{PATH}: 'Bad/zone' has a prefix that is not a DNS subdomain"),
    (["zone"], f"{PATH}: must be a map of label keys to values"),
])
def test_what_a_pod_could_not_have_is_refused_naming_the_field(value, message):
    with pytest.raises(N.SelectorError) as err:
        N.parse(value, PATH)
    assert str(err.value) == message


def _class(**vm) -> dict:
    return {"spec": {"virtualMachine": {"cpu": {"cores": 2}, "memory": {"size": "4Gi"},
                                        "virtualMachineClassName": "generic", **vm},
                     "rootDisk": {"size": "20Gi", "image": {"kind": "VirtualImage", "name": "ubuntu"}}}}


def test_class_problems_accept_every_form_upstream_accepts_that_a_vm_can_carry():
    # crds/instance_class.yaml@21af0b5e: nodeSelector terms
    for policy in ("AlwaysSafe", "PreferSafe", "AlwaysForced", "PreferForced"):
        assert G.class_problems(_class(liveMigrationPolicy=policy, nodeSelector=UPSTREAM_TERMS)) == []
    assert G.class_problems(_class(nodeSelector={"zone": "a"})) == []
    assert G.class_problems(_class(gpus=[])) == []


def test_class_problems_refuse_what_no_vm_can_carry_with_what_to_write_instead():
    # crds/instance_class.yaml@21af0b5e accepts rootDisk.image.kind VirtualDisk, virtualMachine.gpus and
    # liveMigrationPolicy Never; DVP's VirtualMachine CRD (virtualization v1.8.0 crds/virtualmachines.yaml) has no
    # Never, a VirtualDisk's dataSource no VirtualDisk
    ic = _class(gpus=[{"gpuClassName": "nvidia-h100"}], nodeSelector={"rack": "r1", "nodeSelectorTerms": [{}]},
                liveMigrationPolicy="Never")
    ic["spec"]["rootDisk"]["image"] = {"kind": "VirtualDisk", "name": "golden"}
    assert G.class_problems(ic) == [
        ("spec.rootDisk.image", "kind: VirtualDisk cannot be a node image (DVP makes a disk only from an image or a "
                                "snapshot, and nodes cannot share one boot disk); make a VirtualImage from that "
                                "disk (dataSource.objectRef.kind: VirtualDisk) and set kind: VirtualImage and its "
                                "name"),
        ("spec.virtualMachine", "gpus: not supported by this module yet (DVP passes GPUs through VirtualMachine "
                                "spec.gpus behind its GPU feature gate); remove spec.virtualMachine.gpus"),
        ("spec.virtualMachine", "liveMigrationPolicy: Manual and Never are refused by DVP's VirtualMachine (its CRD "
                                "takes AlwaysSafe, PreferSafe, AlwaysForced, PreferForced); set one of those, or "
                                "leave it out for PreferForced"),
        (PATH, "label keys (rack) next to nodeSelectorTerms; write them as matchExpressions (operator In) of every "
               "term, or use only the label map"),
    ]


def test_the_crd_says_word_for_word_what_the_rule_says():
    from pathlib import Path

    import yaml

    crd = yaml.safe_load((Path(__file__).resolve().parents[2] / "crds" / "dvpinstanceclass.yaml").read_text())
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    (image_rule,) = spec["rootDisk"]["properties"]["image"]["x-kubernetes-validations"]
    gpu_rule, migration_rule = spec["virtualMachine"]["x-kubernetes-validations"]
    assert (image_rule["message"], gpu_rule["message"], migration_rule["message"]) == (
        G.VIRTUAL_DISK_IMAGE, G.GPUS, G.LIVE_MIGRATION)

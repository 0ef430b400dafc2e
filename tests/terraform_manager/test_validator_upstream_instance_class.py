# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dhctl's validator on DVPInstanceClasses written for Deckhouse's module: each case is read in its newest CRD,
modules/030-cloud-provider-dvp/crds/instance_class.yaml@21af0b5e2fcf016a7e5e0528b72345dc290008e0. Accepted with the
same meaning, or refused before OpenTofu plans, one line saying what to write instead (the CRD's words)."""

from __future__ import annotations

import json

import pytest
from dvp_validator import schemas
from dvp_validator.domain import inputs, rules
from terraform_manager.inputs import payload


@pytest.fixture(scope="module")
def loaded():
    return schemas.load()


def check(p: dict, loaded) -> list[dict]:
    return [vars(v) for v in rules.validate(inputs.parse(json.dumps(p).encode()), loaded).errors]


def test_terms_are_valid(loaded):
    p = payload()
    vm = p["vars"]["instanceClasses"]["worker"]["spec"]["virtualMachine"]
    vm["nodeSelector"] = {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["dvp-node-3"]}]}]}
    assert check(p, loaded) == []


def test_what_no_vm_can_carry_is_refused_with_what_to_write_instead(loaded):
    p = payload()
    spec = p["vars"]["instanceClasses"]["worker"]["spec"]
    spec["rootDisk"]["image"] = {"kind": "VirtualDisk", "name": "golden"}
    spec["virtualMachine"]["gpus"] = [{"gpuClassName": "nvidia-h100"}]
    spec["virtualMachine"]["liveMigrationPolicy"] = "Manual"
    spec["virtualMachine"]["nodeSelector"] = {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "pool", "operator": "Gt", "values": ["many"]}]}]}
    assert check(p, loaded) == [
        {"path": "DVPInstanceClass/worker.spec.rootDisk.image", "code": "instance_class_unsupported",
         "message": 'DVPInstanceClass "worker": spec.rootDisk.image: kind: VirtualDisk cannot be a node image (DVP '
                    "makes a disk only from an image or a snapshot, and nodes cannot share one boot disk); make a "
                    "VirtualImage from that disk (dataSource.objectRef.kind: VirtualDisk) and set kind: "
                    "VirtualImage and its name"},
        {"path": "DVPInstanceClass/worker.spec.virtualMachine", "code": "instance_class_unsupported",
         "message": 'DVPInstanceClass "worker": spec.virtualMachine: gpus: not supported by this module yet (DVP '
                    "passes GPUs through VirtualMachine spec.gpus behind its GPU feature gate); remove "
                    "spec.virtualMachine.gpus"},
        {"path": "DVPInstanceClass/worker.spec.virtualMachine", "code": "instance_class_unsupported",
         "message": 'DVPInstanceClass "worker": spec.virtualMachine: liveMigrationPolicy: Manual and Never are '
                    "refused by DVP's VirtualMachine (its CRD takes AlwaysSafe, PreferSafe, AlwaysForced, "
                    "PreferForced); set one of those, or leave it out for PreferForced"},
        {"path": "DVPInstanceClass/worker.spec.virtualMachine.nodeSelector.nodeSelectorTerms[0]"
                 ".matchExpressions[0].values", "code": "instance_class_unsupported",
         "message": 'DVPInstanceClass "worker": spec.virtualMachine.nodeSelector.nodeSelectorTerms[0]'
                    ".matchExpressions[0].values: must be one integer for operator Gt"},
    ]

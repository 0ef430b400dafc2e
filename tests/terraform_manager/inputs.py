# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dhctl's validator payloads built from the layouts' test inputs (testkit/candi/layout_inputs.py)."""

from __future__ import annotations

import copy

from testkit.candi.layout_inputs import variables

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: dvp, cluster: {server: "https://127.0.0.1:6443"}}]
contexts: [{name: dvp, context: {cluster: dvp, user: sa}}]
current-context: dvp
users: [{name: sa, user: {token: not-a-real-token}}]
"""


def payload(operation: str = "bootstrap", kubeconfig: str = KUBECONFIG, ns: str = "candi-1", **layout_vars) -> dict:
    v = variables(kubeconfig, ns, **layout_vars)
    return {"providerName": "dvp", "operation": operation, "clusterPrefix": "candi", "layout": "Standard",
            "providerClusterConfiguration": None,
            "vars": copy.deepcopy({k: v[k] for k in ("settings", "nodeGroups", "instanceClasses", "secrets")})}


def bad_master_class_kind(p: dict) -> dict:
    """The master NodeGroup pointing at another provider's instance class."""
    p["vars"]["nodeGroups"]["master"]["spec"]["cloudInstances"]["classReference"]["kind"] = "OpenStackInstanceClass"
    return p


BAD_MASTER_VIOLATION = {
    "path": "NodeGroup/master.spec.cloudInstances.classReference.kind",
    "code": "class_reference_kind_invalid",
    "message": 'NodeGroup "master": spec.cloudInstances.classReference.kind must be DVPInstanceClass for a '
               "CloudPermanent group, got 'OpenStackInstanceClass'",
}

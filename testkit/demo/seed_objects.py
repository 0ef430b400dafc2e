# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Guest objects made the way their real makers make them: the credentials Secret (the user / dhctl), CAPI's
Cluster, Machines and bootstrap Secrets (node-manager + CAPI core), Nodes (a kubelet with --cloud-provider=external),
a PVC's CSI requests (the sidecars) and a LoadBalancer Service (a user)."""

from __future__ import annotations

import base64
from typing import Any

CLUSTER = "dvp"  # node-manager's Cluster name for cloud nodes
CAPI_LABEL = "cluster.x-k8s.io/cluster-name"
UNINITIALIZED = "node.cloudprovider.kubernetes.io/uninitialized"


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def credentials_secret(namespace: str, kubeconfig: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "type": "cloud-provider.deckhouse.io/credentials",
            "metadata": {"name": "d8-credentials", "namespace": namespace},
            "data": {"authScheme": b64("kubeconfig"), "secret": b64(b64(kubeconfig))}}


def cluster() -> dict[str, Any]:
    return {"metadata": {"name": CLUSTER}, "spec": {"infrastructureRef": {
        "apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DeckhouseCluster", "name": CLUSTER}}}


def machine_spec(vm_class: str, image: str) -> dict[str, Any]:
    """A DVPInstanceClass turned into a DeckhouseMachine spec (capi/machine-template.yaml shape)."""
    return {"vmClassName": vm_class, "cpu": {"cores": 2, "cpuFraction": "50%"}, "memory": "4Gi",
            "rootDiskSize": "20Gi", "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": image},
            "additionalDisks": []}


def bootstrap_secret(name: str, node_group: str) -> dict[str, Any]:
    return {"metadata": {"name": f"{name}-bootstrap", "labels": {CAPI_LABEL: CLUSTER, "node-group": node_group}},
            "type": "cluster.x-k8s.io/secret",
            "data": {"value": b64("#cloud-config\nhostname: " + name + "\n"), "format": b64("cloud-config")}}


def machine(name: str, node_group: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {CAPI_LABEL: CLUSTER, "node-group": node_group}}, "spec": {
        "clusterName": CLUSTER, "bootstrap": {"dataSecretName": f"{name}-bootstrap"},
        "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DeckhouseMachine",
                              "name": name}}}


def deckhouse_machine(name: str, node_group: str, owner: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {CAPI_LABEL: CLUSTER, "node-group": node_group},
                         "ownerReferences": [{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
                                              "name": name, "uid": owner["metadata"]["uid"], "controller": True,
                                              "blockOwnerDeletion": True}]},
            "spec": spec}


def node(name: str, node_group: str) -> dict[str, Any]:
    """What kubelet --cloud-provider=external registers: no providerID, no addresses, the uninitialized taint."""
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "node.deckhouse.io/group":
                                                  node_group}},
            "spec": {"taints": [{"key": UNINITIALIZED, "value": "true", "effect": "NoSchedule"}]}}


def lb_service(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"type": "LoadBalancer", "selector": {"app": name},
                                                 "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}}

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Guest objects a user or dhctl writes: the credentials Secret, the module's ModuleConfig, a DVPInstanceClass and
its NodeGroup, claims, Pods and a VolumeSnapshot of an application, a LoadBalancer Service. Everything else in the
guest is made by its real makers (node-manager's stand-in, CAPI, kwok, kube-controller-manager, the sidecars)."""

from __future__ import annotations

import base64
from typing import Any

CLUSTER = "dvp"  # node-manager's Cluster name for cloud nodes


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def credentials_secret(namespace: str, kubeconfig: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "type": "cloud-provider.deckhouse.io/credentials",
            "metadata": {"name": "d8-credentials", "namespace": namespace},
            "data": {"authScheme": b64("kubeconfig"), "secret": b64(b64(kubeconfig))}}


def module_config(settings: dict[str, Any]) -> dict[str, Any]:
    """The module's ModuleConfig as the user keeps it: settings schema version 2, no provider kubeconfig (the
    credentials Secret holds it)."""
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "ModuleConfig", "metadata": {"name": "cloud-provider-dvp"},
            "spec": {"enabled": True, "version": 2, "settings": settings}}


def instance_class(name: str, vm_class: str, image: str, storage_class: str) -> dict[str, Any]:
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass", "metadata": {"name": name},
            "spec": {"virtualMachine": {"virtualMachineClassName": vm_class,
                                        "cpu": {"cores": 2, "coreFraction": "50%"}, "memory": {"size": "4Gi"}},
                     "rootDisk": {"size": "20Gi", "storageClass": storage_class,
                                  "image": {"kind": "ClusterVirtualImage", "name": image}}}}


def node_group(name: str, instance_class_name: str, per_zone: int, zones: list[str]) -> dict[str, Any]:
    return {"apiVersion": "deckhouse.io/v1", "kind": "NodeGroup", "metadata": {"name": name},
            "spec": {"nodeType": "CloudEphemeral", "cloudInstances": {
                "classReference": {"kind": "DVPInstanceClass", "name": instance_class_name},
                "minPerZone": per_zone, "maxPerZone": max(per_zone, 1) + 1, "zones": zones}}}


def claim(name: str, storage_class: str, size: str, snapshot: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"metadata": {"name": name}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
        "resources": {"requests": {"storage": size}}}}
    if snapshot:
        body["spec"]["dataSource"] = {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot",
                                      "name": snapshot}
    return body


def pod(name: str, claim_name: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {
        "containers": [{"name": "app", "image": "registry.example/app:1",
                        "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
        "terminationGracePeriodSeconds": 0}}


def volume_snapshot(name: str, claim_name: str) -> dict[str, Any]:
    """No class named: the snapshot webhooks' mutation fills in the one the claim's StorageClass prescribes."""
    return {"metadata": {"name": name}, "spec": {"source": {"persistentVolumeClaimName": claim_name}}}


def lb_service(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"type": "LoadBalancer", "selector": {"app": name},
                                                 "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}}

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Objects a DVP cluster has before the provider arrives: StorageClasses, VirtualMachineClasses, images.

Idempotent (an existing object is kept). Tests and the demo call these on the DVP API.
"""

from __future__ import annotations

from dvp_common.dvp import resources as R
from dvp_common.kube import KubeClient

DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"


def storage_class(client: KubeClient, name: str, *, binding_mode: str = "Immediate", default: bool = False,
                  allow_expansion: bool = True, reclaim_policy: str = "Delete") -> dict:
    body = {"metadata": {"name": name, "annotations": {DEFAULT_CLASS: "true"} if default else {}},
            "provisioner": "replicated.csi.storage.deckhouse.io", "volumeBindingMode": binding_mode,
            "allowVolumeExpansion": allow_expansion, "reclaimPolicy": reclaim_policy}
    return client.create(R.STORAGE_CLASS, body, get_existing=True)


def vm_class(client: KubeClient, name: str = "generic") -> dict:
    body = {"metadata": {"name": name}, "spec": {"cpu": {"type": "Discovery"}, "sizingPolicies": [
        {"cores": {"min": 1, "max": 64}, "coreFractions": [5, 10, 20, 50, 100]}]}}
    return client.create(R.VIRTUAL_MACHINE_CLASS, body, get_existing=True)


def cluster_image(client: KubeClient, name: str, image: str = "registry.example/ubuntu:24.04") -> dict:
    body = {"metadata": {"name": name}, "spec": {"dataSource": {"type": "ContainerImage",
                                                                "containerImage": {"image": image}}}}
    return client.create(R.CLUSTER_VIRTUAL_IMAGE, body, get_existing=True)


def image(client: KubeClient, namespace: str, name: str, image: str = "registry.example/ubuntu:24.04") -> dict:
    body = {"metadata": {"name": name}, "spec": {"storage": "ContainerRegistry", "dataSource": {
        "type": "ContainerImage", "containerImage": {"image": image}}}}
    return client.create(R.VIRTUAL_IMAGE, body, namespace, get_existing=True)

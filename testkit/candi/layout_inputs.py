# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""dhctl's layout variables for a small cluster in a DVP namespace (tests/candi/test_apply.py, bench/candi.py)."""

import base64

UUID = "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
POOL = "10.77.0.0/24"  # not the simulator's default pool: leases are cluster-wide and other tests use that one
STATIC_IP = "10.77.0.50"
SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTestsOnly test@candi"
STORAGE_CLASS = "candi-fast"
IMAGES = ("candi-ubuntu", "candi-ubuntu-next")


def seed_parent(client) -> None:
    """What the parent DVP cluster has before the installer runs (idempotent)."""
    from sim import seed

    seed.storage_class(client, STORAGE_CLASS)
    seed.vm_class(client, "generic")
    seed.cluster_image(client, IMAGES[0])
    seed.cluster_image(client, IMAGES[1], image="registry.example/ubuntu:26.04")


def instance_class(name, *, etcd=False, image=IMAGES[0], cores=2):
    spec = {
        "virtualMachine": {"cpu": {"cores": cores}, "memory": {"size": "4Gi"}, "virtualMachineClassName": "generic"},
        "rootDisk": {"size": "20Gi", "storageClass": STORAGE_CLASS,
                     "image": {"kind": "ClusterVirtualImage", "name": image}},
        "additionalDisks": [{"size": "5Gi", "storageClass": STORAGE_CLASS}],
    }
    if etcd:
        spec["etcdDisk"] = {"size": "10Gi", "storageClass": STORAGE_CLASS}
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass", "metadata": {"name": name},
            "spec": spec}


def node_group(name, cls):
    return {"apiVersion": "deckhouse.io/v1", "kind": "NodeGroup", "metadata": {"name": name},
            "spec": {"nodeType": "CloudPermanent",
                     "cloudInstances": {"classReference": {"kind": "DVPInstanceClass", "name": cls}}}}


def variables(kubeconfig_text, ns, **overrides):
    kubeconfig = base64.b64encode(kubeconfig_text.encode()).decode()
    out = {
        "clusterConfiguration": {"cloud": {"prefix": "candi"}},
        "clusterUUID": UUID,
        "nodeIndex": 0,
        "cloudConfig": "",
        "nodeGroupName": "master",
        "settings": {"apiVersion": "deckhouse.io/v1alpha1", "kind": "ModuleConfig",
                     "metadata": {"name": "cloud-provider-dvp"},
                     "spec": {"version": 2, "settings": {
                         "provider": {"parameters": {"namespace": ns}},
                         "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": SSH_KEY,
                                                  "ipAddresses": {"master": [STATIC_IP]}}}}}},
        "nodeGroups": {"master": node_group("master", "master"), "worker": node_group("worker", "worker")},
        "instanceClasses": {"master": instance_class("master", etcd=True), "worker": instance_class("worker")},
        "secrets": {"d8-credentials": {"apiVersion": "v1", "kind": "Secret",
                                       "metadata": {"name": "d8-credentials", "namespace": "d8-cloud-provider-dvp"},
                                       "type": "cloud-provider.deckhouse.io/credentials",
                                       "stringData": {"authScheme": "kubeconfig", "secret": kubeconfig}}},
    }
    out.update(overrides)
    return out

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Cluster objects for the migration hooks' tests: a legacy configuration and the v2 objects replacing it."""

import types

import yaml

from lib import migration
from lib import testing as t

KUBECONFIG_B64 = t.b64(yaml.safe_dump({
    "apiVersion": "v1", "kind": "Config", "current-context": "c",
    "clusters": [{"name": "c", "cluster": {"server": "https://dvp:6443"}}],
    "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
    "users": [{"name": "u", "user": {"token": "t0k"}}]}))

VM = {"cpu": {"cores": 4, "coreFraction": "50%"}, "memory": {"size": "8Gi"}, "virtualMachineClassName": "generic"}
ROOT = {"size": "50Gi", "storageClass": "replicated", "image": {"kind": "ClusterVirtualImage", "name": "ubuntu"}}
PCC = {
    "apiVersion": "deckhouse.io/v1", "kind": "DVPClusterConfiguration", "layout": "Standard",
    "sshPublicKey": "ssh-ed25519 AAAA admin", "zones": ["z1"], "region": "r1",
    "provider": {"kubeconfigDataBase64": KUBECONFIG_B64, "namespace": "tenant", "networkPolicy": "None",
                 "ingressPorts": [22, 443]},
    "masterNodeGroup": {"replicas": 1, "instanceClass": {
        "virtualMachine": VM | {"ipAddresses": ["10.0.0.5"]}, "rootDisk": ROOT,
        "etcdDisk": {"size": "15Gi", "storageClass": "replicated"}}},
    "nodeGroups": [{"name": "front", "replicas": 2, "zones": ["z2"],
                    "nodeTemplate": {"labels": {"role": "front"}},
                    "instanceClass": {"virtualMachine": VM, "rootDisk": ROOT}}],
}


def pcc_secret(doc=None, text=None):
    return t.secret("kube-system", "d8-provider-cluster-configuration", {
        "cloud-provider-cluster-configuration.yaml": text if text is not None else yaml.safe_dump(doc or PCC)})


def module_config(version=2, settings=True):
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "ModuleConfig", "metadata": {"name": "cloud-provider-dvp"},
            "spec": {"version": version, "enabled": True,
                     "settings": {"provider": {"parameters": {"namespace": "tenant"}}} if settings else {}}}


def credentials():
    return t.secret("d8-cloud-provider-dvp", "d8-credentials", {"authScheme": "kubeconfig", "secret": "x"},
                    "cloud-provider.deckhouse.io/credentials")


def node_group(name):
    return {"apiVersion": "deckhouse.io/v1", "kind": "NodeGroup", "metadata": {"name": name},
            "spec": {"nodeType": "CloudPermanent", "cloudInstances": {
                "classReference": {"kind": "DVPInstanceClass", "name": migration.instance_class_name(name)}}}}


def instance_class(name):
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass",
            "metadata": {"name": migration.instance_class_name(name)}, "spec": {}}


def migrated() -> dict:
    """All v2 objects of PCC exist."""
    return {"module_config": [module_config()], "credentials_secret": [credentials()],
            "node_groups": [node_group("master"), node_group("front")],
            "instance_classes": [instance_class("master"), instance_class("front")]}


def fingerprint(snaps: dict) -> str:
    """The state fingerprint both migration hooks compute over these snapshots."""
    return migration.state_fingerprint(types.SimpleNamespace(snapshots=snaps))

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The cluster states Deckhouse's own migration hook tests build (deckhouse/deckhouse,
modules/030-cloud-provider-dvp/hooks/dvp_cluster_configuration_test.go@76036b9813b1aa448a721ffcdf0ca3b15d868072 and
create_migration_resources_test.go@0012036b358746f95f846c6eaa8d90fa5658227c), as full objects for our bindings.

Only the facts are carried over (names, keys, values). Their kubeconfig is the text "apiVe", which our credentials
rule refuses (not a kubeconfig): a real one stands in for it, as everywhere in our tests."""

import copy

import yaml

from lib import migration
from lib import testing as t
from lib.testing import migration_fixtures as f

NAMESPACE = "d8-cloud-provider-dvp"
MASTER_IC = "master-fc613b4dfd67"  # Deckhouse's hashed instance class name of the master group

PCC = {
    "apiVersion": "deckhouse.io/v1", "kind": "DVPClusterConfiguration", "layout": "Standard",
    "masterNodeGroup": {"replicas": 3, "instanceClass": {
        "etcdDisk": {"size": "15Gi", "storageClass": "ceph-pool-r2-csi-rbd-immediate"},
        "rootDisk": {"image": {"kind": "ClusterVirtualImage", "name": "ubuntu-2204"}, "size": "50Gi",
                     "storageClass": "ceph-pool-r2-csi-rbd-immediate"},
        "virtualMachine": {"virtualMachineClassName": "superbe-class", "bootloader": "EFI",
                           "cpu": {"coreFraction": "100%", "cores": 4}, "liveMigrationPolicy": "PreferForced",
                           "runPolicy": "AlwaysOnUnlessStoppedManually", "ipAddresses": ["Auto"],
                           "memory": {"size": "8Gi"}}}},
    "provider": {"kubeconfigDataBase64": f.KUBECONFIG_B64, "namespace": "cloud-provider01"},
    "sshPublicKey": "ssh-rsa AAAAB3N", "region": "ru-msk-1", "zones": ["default"],
}
DISCOVERY = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["default"]}


def pcc(**changes) -> dict:
    """The legacy configuration with top-level keys changed (None removes one)."""
    doc = copy.deepcopy(PCC)
    for key, value in changes.items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    return doc


def pcc_secret(doc=None, discovery=DISCOVERY) -> dict:
    import json

    data = {"cloud-provider-cluster-configuration.yaml": yaml.safe_dump(doc or PCC)}
    if discovery is not None:
        data["cloud-provider-discovery-data.json"] = json.dumps(discovery)
    return t.secret("kube-system", "d8-provider-cluster-configuration", data)


def module_config_v2() -> dict:
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "ModuleConfig", "metadata": {"name": "cloud-provider-dvp"},
            "spec": {"version": 2, "enabled": True, "settings": {
                "provider": {"parameters": {"namespace": "cloud-provider01"}},
                "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": "ssh-rsa AAAAB3N"}},
                "storage": {"parameters": {}}}}}


def module_config_v1(namespace="cloud-provider01", zones=None) -> dict:
    provider = {"kubeconfigDataBase64": f.KUBECONFIG_B64}
    if namespace:
        provider["namespace"] = namespace
    settings = {"provider": provider} | ({"zones": zones} if zones else {})
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "ModuleConfig", "metadata": {"name": "cloud-provider-dvp"},
            "spec": {"version": 1, "enabled": True, "settings": settings}}


def credentials() -> dict:
    return t.secret(NAMESPACE, "d8-credentials", {"authScheme": "kubeconfig", "secret": f.KUBECONFIG_B64},
                    "cloud-provider.deckhouse.io/credentials")


def node_group(class_reference: bool = False) -> dict:
    """Their NodeGroup "master" names no instance class (spec.nodeType only); with class_reference, it names
    the migrated one."""
    spec = {"nodeType": "CloudPermanent"}
    if class_reference:
        spec["cloudInstances"] = {"classReference": {"kind": "DVPInstanceClass", "name": MASTER_IC}}
    return {"apiVersion": "deckhouse.io/v1", "kind": "NodeGroup", "metadata": {"name": "master"}, "spec": spec}


def instance_class() -> dict:
    return {"apiVersion": "deckhouse.io/v1alpha1", "kind": "DVPInstanceClass", "metadata": {"name": MASTER_IC},
            "spec": {}}


def bundle_secret() -> dict:
    return t.secret(NAMESPACE, migration.BUNDLE_SECRET, {})


def marker() -> dict:
    return t.configmap(NAMESPACE, migration.MARKER)


def state_c(class_reference: bool = False) -> dict:
    """"State C": the legacy configuration and every new object of theirs."""
    return {"legacy_cluster_configuration": [pcc_secret()], "module_config": [module_config_v2()],
            "credentials_secret": [credentials()], "node_groups": [node_group(class_reference)],
            "instance_classes": [instance_class()]}

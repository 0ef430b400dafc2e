# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The guest cluster's objects that name the parent's, as an upstream-run cluster holds them: pure bodies, no uid.

Whose code writes each: the Node's providerID is upstream's CCM (`InstanceID` = the VM's name, pkg/cloudprovider/
dvp/instance.go@07c5c4f4); the PersistentVolume is the external-provisioner's over upstream's CSI driver
(volumeHandle = the request name `pvc-<claim uid>`, fsType ext4, no topology); the DeckhouseMachine is Cluster
API's from node-manager's templates (api/v1alpha1/deckhousemachine_types.go@1c43a63c); the LoadBalancer
Service's finalizer is the cloud-provider framework's.
"""

from __future__ import annotations

from typing import Any

from dvp_common.dvp import labels as L

Obj = dict[str, Any]
CSI_DRIVER = "csi.dvp.deckhouse.io"
LB_FINALIZER = "service.kubernetes.io/load-balancer-cleanup"
MACHINES_NS = "d8-cloud-instance-manager"


def node(name: str, vm_name: str, *, internal_ip: str | None = None, labels: Obj | None = None) -> Obj:
    """A Node whose providerID is `dvp://<vm>` (upstream's CCM: the VM's name)."""
    out: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "kubernetes.io/hostname": name, **(labels or {})}}, "spec": {"providerID": L.provider_id(vm_name)}}
    if internal_ip:
        out["status"] = {"addresses": [{"type": "InternalIP", "address": internal_ip},
                                       {"type": "Hostname", "address": name}]}
    return out


def claim(name: str, namespace: str, *, size: str = "1Gi", storage_class: str = "fast") -> Obj:
    """A claim as a user writes it; the API server picks its uid, which names the volume."""
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": namespace},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "resources": {"requests": {"storage": size}}}}


def bound_claim(claim_obj: Obj) -> Obj:
    """`claim_obj` (as stored) with the volume the binder sets: `pvc-<its uid>`."""
    md = claim_obj["metadata"]
    return {**claim_obj, "spec": {**claim_obj["spec"], "volumeName": f"pvc-{md['uid']}"}}


def volume(claim_obj: Obj | None, *, handle: str | None = None, name: str | None = None, size: str = "1Gi",
           storage_class: str = "fast", driver: str = CSI_DRIVER) -> Obj:
    """The PersistentVolume the external-provisioner makes for `claim_obj` (as stored): name and volumeHandle
    `pvc-<claim uid>`, bound to the claim by claimRef. Without a claim (`handle`, `name`): a PV anyone allowed to
    create one could write, naming any disk."""
    out_name = name or (f"pvc-{claim_obj['metadata']['uid']}" if claim_obj else handle)
    assert out_name, "a volume needs a claim or a name"
    spec: Obj = {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                 "persistentVolumeReclaimPolicy": "Delete", "storageClassName": storage_class,
                 "volumeMode": "Filesystem",
                 "csi": {"driver": driver, "volumeHandle": handle or out_name, "fsType": "ext4", "volumeAttributes": {
                     "storage.kubernetes.io/csiProvisionerIdentity": f"1700000000000-{driver}"}}}
    if claim_obj is not None:
        md = claim_obj["metadata"]
        spec["claimRef"] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": md["namespace"],
                            "name": md["name"], "uid": md["uid"]}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": out_name, "annotations": {"pv.kubernetes.io/provisioned-by": driver}}, "spec": spec}


def deckhouse_machine(name: str, *, namespace: str = MACHINES_NS, cluster: str = "dvp") -> Obj:
    """A DeckhouseMachine as Cluster API makes it from node-manager's template (the spec's required fields)."""
    return {"apiVersion": "infrastructure.cluster.x-k8s.io/v1alpha1", "kind": "DeckhouseMachine",
            "metadata": {"name": name, "namespace": namespace,
                         "labels": {"cluster.x-k8s.io/cluster-name": cluster}},
            "spec": {"vmClassName": "generic", "cpu": {"cores": 2, "cpuFraction": "50%"}, "memory": "4Gi",
                     "rootDiskSize": "20Gi", "rootDiskStorageClass": "fast",
                     "bootDiskImageRef": {"kind": "ClusterVirtualImage", "name": "ubuntu-24-04"},
                     "bootloader": "EFI", "runPolicy": "AlwaysOnUnlessStoppedManually"}}


def lb_service(name: str, namespace: str, *, ports: tuple[tuple[str, int], ...] = (("http", 80),),
               annotations: Obj | None = None, finalizer: bool = True) -> Obj:
    """A guest LoadBalancer Service upstream's CCM serves: the framework's cleanup finalizer on it (`finalizer`)."""
    md: Obj = {"name": name, "namespace": namespace}
    if finalizer:
        md["finalizers"] = [LB_FINALIZER]
    if annotations:
        md["annotations"] = dict(annotations)
    return {"apiVersion": "v1", "kind": "Service", "metadata": md, "spec": {
        "type": "LoadBalancer", "externalTrafficPolicy": "Cluster", "selector": {"app": name},
        "ports": [{"name": n, "protocol": "TCP", "port": p, "targetPort": p} for n, p in ports]}}

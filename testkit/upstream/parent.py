# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The parent project's objects as the upstream (Go) cloud-provider-dvp makes them: pure bodies, no uid.

Each function names the upstream file (deckhouse/deckhouse, under `modules/030-cloud-provider-dvp/`) and commit
whose shape it follows. An object with an owner takes the owner as stored (`owner`: its uid is the API server's),
so the ownerReference names a real uid the way upstream's `kubernetes_owner_references_v1` or the Go client
writes it (apiVersion, kind, name, uid; no controller flag).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from dvp_common.dvp import labels as L
from dvp_common.dvp.resources import API_VERSION

Obj = dict[str, Any]
CLOUD_INIT_TYPE = "provisioning.virtualization.deckhouse.io/cloud-init"
CLUSTER_PREFIX = "dvp.deckhouse.io/cluster-prefix"
NODE_GROUP = "dvp.deckhouse.io/node-group"
LB_VALUE = "loadbalancer"


def tf_jsonencode(value: Any) -> str:
    """OpenTofu's `jsonencode`: object keys sorted, no spaces, `<`, `>` and `&` escaped as \\u003c ... ."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _h6(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:6]


def owner_ref(owner: Obj) -> list[Obj]:
    md = owner["metadata"]
    return [{"apiVersion": API_VERSION, "kind": owner.get("kind", "VirtualMachine"), "name": md["name"],
             "uid": md["uid"]}]


def _meta(name: str, labels: Obj | None = None, annotations: Obj | None = None, owner: Obj | None = None) -> Obj:
    md: Obj = {"name": name}
    if labels is not None:
        md["labels"] = dict(labels)
    if annotations:
        md["annotations"] = dict(annotations)
    if owner is not None:
        md["ownerReferences"] = owner_ref(owner)
    return md


def _three_labels(uuid: str, hostname: str) -> Obj:
    return {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.CLUSTER_UUID: uuid, L.HOSTNAME: hostname}


# -- dhctl: the master node layout ----------------------------------------------------------------------------
def master_hostname(prefix: str, index: int) -> str:
    """`<prefix>-master-<index>`: candi/layouts/standard/master-node/variables.tf@b2e479d3 local `hostname`."""
    return f"{prefix}-master-{index}"


def root_disk(prefix: str, index: int, uuid: str, *,
              image: tuple[str, str] = ("ClusterVirtualImage", "ubuntu-24-04"), size: str = "50Gi",
              storage_class: str | None = None, owner: Obj | None = None) -> Obj:
    """candi/terraform-modules/root-disk/variables.tf@916db4db (locals) and main.tf@916db4db: named
    `<prefix>-master-<index>-<h6>`, h6 the sha256 of the parameters' JSON encoded twice (the image's key is `type`);
    the three labels; the parameters as annotations. The owner reference to the VM is the layout's
    (layouts/standard/master-node/main.tf@282e9c5e)."""
    params = {"rootDisk": {"storageClass": storage_class, "image": {"type": image[0], "name": image[1]}}}
    text = tf_jsonencode(params)
    h6 = _h6(tf_jsonencode(text))
    pvc: Obj = {"size": size}
    if storage_class is not None:
        pvc["storageClassName"] = storage_class
    return {"apiVersion": API_VERSION, "kind": "VirtualDisk",
            "metadata": _meta(f"{prefix}-master-{index}-{h6}", _three_labels(uuid, master_hostname(prefix, index)),
                              {"last_applied_destructive_root_disk_parameters": text,
                               "last_applied_destructive_root_disk_parameters_hash": h6}, owner),
            "spec": {"dataSource": {"type": "ObjectRef", "objectRef": {"kind": image[0], "name": image[1]}},
                     "persistentVolumeClaim": pvc}}


def etcd_disk(prefix: str, index: int, uuid: str, *, size: str = "15Gi", storage_class: str | None = None,
              owner: Obj | None = None) -> Obj:
    """candi/terraform-modules/kubernetes-data-disk/variables.tf@916db4db: `<prefix>-master-kubernetes-data-<index>-
    <h6>` (upstream's key is spelled `kbernetesDataDisk`; its annotations reuse the root disk's keys)."""
    params = {"kbernetesDataDisk": {"storageClass": storage_class}}
    text = tf_jsonencode(params)
    h6 = _h6(tf_jsonencode(text))
    pvc: Obj = {"size": size}
    if storage_class is not None:
        pvc["storageClassName"] = storage_class
    return {"apiVersion": API_VERSION, "kind": "VirtualDisk",
            "metadata": _meta(f"{prefix}-master-kubernetes-data-{index}-{h6}",
                              _three_labels(uuid, master_hostname(prefix, index)),
                              {"last_applied_destructive_root_disk_parameters": text,
                               "last_applied_destructive_root_disk_parameters_hash": h6}, owner),
            "spec": {"persistentVolumeClaim": pvc}}


def disk_hash(disk: Obj) -> str:
    return disk["metadata"]["annotations"]["last_applied_destructive_root_disk_parameters_hash"]


def ip_address(hostname: str, uuid: str, address: str = "Auto", owner: Obj | None = None) -> Obj:
    """candi/terraform-modules/ipv4-address/variables.tf@916db4db, main.tf@9c5361f4: `lower(<hostname>-<address,
    dots as dashes>)` (`-auto` for Auto), the three labels, type Auto or Static. The layout writes `staticIP: ""`
    for Auto; DVP's schema (an ipv4 format) takes no empty string, so what DVP holds has no staticIP then."""
    spec = {"type": "Auto"} if address == "Auto" else {"staticIP": address, "type": "Static"}
    name = f"{hostname}-{address.replace('.', '-')}".lower()
    return {"apiVersion": API_VERSION, "kind": "VirtualMachineIPAddress",
            "metadata": _meta(name, _three_labels(uuid, hostname), owner=owner), "spec": spec}


def master_vm(prefix: str, index: int, uuid: str, root: Obj, etcd: Obj, *, address: Obj | None = None,
              cores: int = 4, core_fraction: str = "100%", memory: str = "8Gi",
              ssh_public_key: str = "ssh-ed25519 AAAA",
              vm_class: str = "generic", ip: str = "Auto", zone: str = "", region: str = "",
              additional_labels: Obj | None = None) -> Obj:
    """candi/terraform-modules/master/variables.tf@dcb36430 and main.tf@f536b818: `<hostname>-<h6>`, h6 over the
    destructive parameters (cpu, memory, nodeSelector, tolerations, priority class, IP, sha256 of the SSH key,
    the disks' hashes); labels managed-by, cluster-prefix, cluster-uuid, node-group, hostname (+ additional)."""
    hostname = master_hostname(prefix, index)
    node_selector = {k: v for k, v in (("topology.kubernetes.io/zone", zone), ("topology.kubernetes.io/region",
                                                                                 region)) if v}
    key_hash = hashlib.sha256(tf_jsonencode(ssh_public_key).encode()).hexdigest()
    params = {"virtualMachine": {"cpu": {"cores": cores, "coreFraction": core_fraction}, "memory": {"size": memory},
                                 "nodeSelector": node_selector, "tolerations": None, "priorityClassName": None,
                                 "ipAddress": ip, "sshPublicKeyHash": key_hash},
              "rootDiskHash": disk_hash(root), "etcDiskHash": disk_hash(etcd), "additionalDisksHash": []}
    text = tf_jsonencode(params)
    h6 = _h6(text)
    labels = {L.MANAGED_BY: L.MANAGED_BY_VALUE, CLUSTER_PREFIX: prefix, L.CLUSTER_UUID: uuid, NODE_GROUP: "master",
              L.HOSTNAME: hostname, **(additional_labels or {})}
    spec: Obj = {
        "terminationGracePeriodSeconds": 90, "bootloader": "BIOS", "enableParavirtualization": True,
        "osType": "Generic", "virtualMachineClassName": vm_class, "disruptions": {"restartApprovalMode": "Automatic"},
        "cpu": {"coreFraction": core_fraction, "cores": cores}, "memory": {"size": memory},
        "blockDeviceRefs": [{"kind": "VirtualDisk", "name": root["metadata"]["name"]},
                            {"kind": "VirtualDisk", "name": etcd["metadata"]["name"]}],
        "provisioning": {"type": "UserDataRef", "userDataRef": {"kind": "Secret",
                                                                "name": f"{hostname}-cloudinit-{h6}"}},
        "liveMigrationPolicy": "PreferForced", "runPolicy": "AlwaysOnUnlessStoppedManually"}
    if address is not None:
        spec["virtualMachineIPAddressName"] = address["metadata"]["name"]
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"apiVersion": API_VERSION, "kind": "VirtualMachine",
            "metadata": _meta(f"{hostname}-{h6}", labels, {"last_applied_destructive_vm_parameters": text,
                                                            "last_applied_destructive_vm_parameters_hash": h6}),
            "spec": spec}


def master_cloud_init(vm: Obj, owner: Obj | None = None) -> Obj:
    """candi/terraform-modules/master/main.tf@f536b818 `cloudinit-secret`: `<hostname>-cloudinit-<h6>`, no labels
    (the resource does not use them), the cloud-init type; owned by the VM (the layout's owner references)."""
    name = vm["spec"]["provisioning"]["userDataRef"]["name"]
    return {"apiVersion": "v1", "kind": "Secret", "metadata": _meta(name, owner=owner), "type": CLOUD_INIT_TYPE,
            "data": {"userData": base64.b64encode(b"#cloud-config\n").decode()}}


def isolated_network_policy(prefix: str, uuid: str, namespace: str) -> Obj:
    """candi/layouts/standard/base-infrastructure/main.tf@cc1930c3, variables.tf@95c3d13d: `isolated-<prefix>`,
    only the cluster-UUID label, pods selected by it; ingress from the project, TCP 22, ingress-nginx, d8-metallb."""
    def ns_sel(name: str) -> Obj:
        return {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": name}}}
    nginx = {**ns_sel("d8-ingress-nginx"), "podSelector": {"matchLabels": {"app": "controller"}}}
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": _meta(f"isolated-{prefix}", {L.CLUSTER_UUID: uuid}),
            "spec": {"podSelector": {"matchLabels": {L.CLUSTER_UUID: uuid}}, "policyTypes": ["Ingress", "Egress"],
                     "ingress": [{"from": [ns_sel(namespace)]},
                                 {"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}],
                                  "ports": [{"port": 22, "protocol": "TCP"}]},
                                 {"from": [nginx]}, {"from": [ns_sel("d8-metallb")]}],
                     "egress": [{"to": [ns_sel(namespace)]}, {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}]},
                                {"to": [nginx]},
                                {"ports": [{"port": 53, "protocol": "UDP"}], "to": [ns_sel("kube-system")]},
                                {"to": [ns_sel("d8-metallb")]}]}}


# -- capdvp: a DeckhouseMachine's VM, disks and cloud-init Secret --------------------------------------------
CAPDVP_SOURCE = ("images/capdvp-controller-manager/src/internal/controller/deckhousemachine_controller.go@0022a989 "
                 "`ensureVM`; images/dvp-common/api/disk.go@010dec91 `CreateDiskFromDataSource`, `CreateDisk`; "
                 "compute.go@d43b8352 `CreateCloudInitProvisioningSecret`")


def machine_vm(machine: str, uuid: str | None, *, labels: Obj | None = None, disks: list[str] | None = None,
               vm_class: str = "generic", cores: int = 2, memory: str = "4Gi",
               extra_labels: Obj | None = None) -> Obj:
    """The VM capdvp makes for a DeckhouseMachine (see CAPDVP_SOURCE): named after it, labelled managed-by,
    cluster UUID (None: absent, as the oldest releases) and hostname, never a component label; user data
    `cloud-init-<m>`, disks `<m>-boot` and `<m>-additional-disk-<i>`."""
    if labels is None:
        labels = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.HOSTNAME: machine}
        if uuid is not None:
            labels[L.CLUSTER_UUID] = uuid
    labels = {**labels, **(extra_labels or {})}
    disks = [f"{machine}-boot"] if disks is None else disks
    return {"apiVersion": API_VERSION, "kind": "VirtualMachine", "metadata": _meta(machine, labels), "spec": {
        "runPolicy": "AlwaysOnUnlessStoppedManually", "liveMigrationPolicy": "PreferSafe", "osType": "Generic",
        "bootloader": "EFI", "virtualMachineClassName": vm_class, "enableParavirtualization": True,
        "provisioning": {"type": "UserDataRef", "userDataRef": {"kind": "Secret", "name": f"cloud-init-{machine}"}},
        "cpu": {"cores": cores, "coreFraction": "50%"}, "memory": {"size": memory},
        "blockDeviceRefs": [{"kind": "VirtualDisk", "name": d} for d in disks]}}


def machine_disk(machine: str, name: str, uuid: str | None, owner: Obj | None, *, size: str = "20Gi",
                 storage_class: str = "fast", image: tuple[str, str] | None = None) -> Obj:
    """A machine's boot or additional disk (see CAPDVP_SOURCE): labels managed-by, virtualDiskName, cluster UUID,
    hostname; owned by the machine's VM."""
    labels = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.VIRTUAL_DISK_NAME: name, L.HOSTNAME: machine}
    if uuid is not None:
        labels[L.CLUSTER_UUID] = uuid
    spec: Obj = {"persistentVolumeClaim": {"size": size, "storageClassName": storage_class}}
    if image is not None:
        spec["dataSource"] = {"type": "ObjectRef", "objectRef": {"kind": image[0], "name": image[1]}}
    return {"apiVersion": API_VERSION, "kind": "VirtualDisk", "metadata": _meta(name, labels, owner=owner),
            "spec": spec}


def machine_cloud_init(machine: str, owner: Obj | None, labels: Obj | None = None) -> Obj:
    """`cloud-init-<m>` (see CAPDVP_SOURCE): no labels in the releases read; owned by the VM."""
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": _meta(f"cloud-init-{machine}", labels or None, owner=owner), "type": CLOUD_INIT_TYPE,
            "data": {"userData": "I2Nsb3VkLWNvbmZpZw=="}}


# -- CSI: a volume's disk and its hot-plug attachment ---------------------------------------------------------
def csi_disk(claim_uid: str, uuid: str | None = "", *, size: str = "1Gi", storage_class: str = "fast") -> Obj:
    """The CSI driver's disk (images/dvp-csi-driver/src/pkg/dvp-csi-driver/service/controller.go `CreateVolume`,
    images/dvp-common/api/disk.go@010dec91 `CreateDisk`): named by the request, `pvc-<claim uid>`; labels
    managed-by, virtualDiskName and the cluster UUID (empty or absent in older releases: `uuid` "" or None)."""
    name = f"pvc-{claim_uid}"
    labels = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.VIRTUAL_DISK_NAME: name}
    if uuid is not None:
        labels[L.CLUSTER_UUID] = uuid
    return {"apiVersion": API_VERSION, "kind": "VirtualDisk", "metadata": _meta(name, labels),
            "spec": {"persistentVolumeClaim": {"size": size, "storageClassName": storage_class}}}


def csi_labels(name: str, uuid: str | None = "") -> Obj:
    """The labels of `csi_disk` named `name` (for a body built elsewhere, e.g. the simulator's)."""
    out = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.VIRTUAL_DISK_NAME: name}
    if uuid is not None:
        out[L.CLUSTER_UUID] = uuid
    return out


def vmbda(disk: str, hostname: str, vm_name: str) -> Obj:
    """images/dvp-common/api/compute.go@d43b8352 `AttachDiskToVM`: `vmbda-<disk>-<hostname>`, labels
    virtualMachineDiskName=<disk>, virtualMachineName=<hostname> (the node, not the VM), no cluster UUID; the spec
    names the VM found by the hostname label."""
    return {"apiVersion": API_VERSION, "kind": "VirtualMachineBlockDeviceAttachment",
            "metadata": _meta(f"vmbda-{disk}-{hostname}", vmbda_labels(disk, hostname)),
            "spec": {"virtualMachineName": vm_name, "blockDeviceRef": {"kind": "VirtualDisk", "name": disk}}}


def vmbda_labels(disk: str, hostname: str) -> Obj:
    return {L.VIRTUAL_MACHINE_DISK_NAME: disk, L.VIRTUAL_MACHINE_NAME: hostname}


# -- CCM: a guest LoadBalancer Service's parent Service -------------------------------------------------------
def lb_label_key(lb_name: str) -> str:
    """images/dvp-common/api/loadbalancer.go@ff3b0e17 `lbLabelKey`: the name lowercased without dashes, cut so the
    whole key is 63 characters."""
    cut = lb_name.lower().replace("-", "")[:63 - len(L.LB_LABEL_PREFIX)]
    return L.LB_LABEL_PREFIX + cut


def lb_service(guest_service: Obj) -> Obj:
    """images/dvp-common/api/loadbalancer.go@ff3b0e17 `createLoadBalancerService` (the name from the CCM's
    pkg/cloudprovider/dvp/loadbalancer.go@90380e6f): `a<uid without dashes>` cut to 32, the guest Service's
    annotations, no labels, selector `{dvp.deckhouse.io/<name>: loadbalancer}`, one port per guest port targeting
    its NodePort. `guest_service` as stored (its uid and NodePorts are the API server's)."""
    md, spec = guest_service["metadata"], guest_service.get("spec") or {}
    name = L.lb_name(md["uid"])
    ports = [{"name": p.get("name", ""), "protocol": p.get("protocol", "TCP"), "port": p["port"],
              "targetPort": p["nodePort"]} for p in spec.get("ports") or []]
    out_spec: Obj = {"type": "LoadBalancer", "selector": {lb_label_key(name): LB_VALUE}, "ports": ports}
    if spec.get("externalTrafficPolicy"):
        out_spec["externalTrafficPolicy"] = spec["externalTrafficPolicy"]
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": _meta(name, None, md.get("annotations") or None), "spec": out_spec}

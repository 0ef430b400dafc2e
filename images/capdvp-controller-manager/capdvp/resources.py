# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Where the kinds capdvp reads and writes live in the REST API."""

from __future__ import annotations

from dvp_common.kube import Resource

_INFRA = "infrastructure.cluster.x-k8s.io"
_CAPI = "cluster.x-k8s.io"
_VIRT = "virtualization.deckhouse.io"

# Guest cluster
DECKHOUSE_MACHINE = Resource(_INFRA, "v1alpha1", "deckhousemachines", "DeckhouseMachine")
DECKHOUSE_CLUSTER = Resource(_INFRA, "v1alpha1", "deckhouseclusters", "DeckhouseCluster")
DECKHOUSE_MACHINE_TEMPLATE = Resource(_INFRA, "v1alpha1", "deckhousemachinetemplates", "DeckhouseMachineTemplate")
MACHINE = Resource(_CAPI, "v1beta2", "machines", "Machine")
CLUSTER = Resource(_CAPI, "v1beta2", "clusters", "Cluster")
SECRET = Resource("", "v1", "secrets", "Secret")

# DVP cluster
VIRTUAL_MACHINE = Resource(_VIRT, "v1alpha2", "virtualmachines", "VirtualMachine")
VIRTUAL_DISK = Resource(_VIRT, "v1alpha2", "virtualdisks", "VirtualDisk")
VMBDA = Resource(_VIRT, "v1alpha2", "virtualmachineblockdeviceattachments", "VirtualMachineBlockDeviceAttachment")
VMOP = Resource(_VIRT, "v1alpha2", "virtualmachineoperations", "VirtualMachineOperation")
VIRTUAL_MACHINE_CLASS = Resource(_VIRT, "v1alpha2", "virtualmachineclasses", "VirtualMachineClass", namespaced=False)
VIRTUAL_IMAGE = Resource(_VIRT, "v1alpha2", "virtualimages", "VirtualImage")
CLUSTER_VIRTUAL_IMAGE = Resource(_VIRT, "v1alpha2", "clustervirtualimages", "ClusterVirtualImage", namespaced=False)
VIRTUAL_DISK_SNAPSHOT = Resource(_VIRT, "v1alpha2", "virtualdisksnapshots", "VirtualDiskSnapshot")

IMAGE_RESOURCES = {"VirtualImage": VIRTUAL_IMAGE, "ClusterVirtualImage": CLUSTER_VIRTUAL_IMAGE,
                   "VirtualDiskSnapshot": VIRTUAL_DISK_SNAPSHOT}
# Everything capdvp may create in DVP, for the cluster clean-up (VMOPs and VMBDAs first: they pin VMs and disks).
DVP_OWNED = (VMOP, VMBDA, VIRTUAL_MACHINE, VIRTUAL_DISK, SECRET)

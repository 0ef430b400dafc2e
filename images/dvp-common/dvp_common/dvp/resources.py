# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DVP (virtualization.deckhouse.io/v1alpha2) resources, plus the DVP-side built-ins the provider uses."""

from __future__ import annotations

from ..kube.resources import SECRET, SERVICE, STORAGE_CLASS, Resource

GROUP, VERSION = "virtualization.deckhouse.io", "v1alpha2"
API_VERSION = f"{GROUP}/{VERSION}"  # the one spelling of the DVP API version

VIRTUAL_MACHINE = Resource(GROUP, VERSION, "virtualmachines", "VirtualMachine")
VIRTUAL_DISK = Resource(GROUP, VERSION, "virtualdisks", "VirtualDisk")
VIRTUAL_MACHINE_BLOCK_DEVICE_ATTACHMENT = Resource(
    GROUP, VERSION, "virtualmachineblockdeviceattachments", "VirtualMachineBlockDeviceAttachment")
VMBDA = VIRTUAL_MACHINE_BLOCK_DEVICE_ATTACHMENT
VIRTUAL_DISK_SNAPSHOT = Resource(GROUP, VERSION, "virtualdisksnapshots", "VirtualDiskSnapshot")
VIRTUAL_IMAGE = Resource(GROUP, VERSION, "virtualimages", "VirtualImage")
CLUSTER_VIRTUAL_IMAGE = Resource(GROUP, VERSION, "clustervirtualimages", "ClusterVirtualImage", namespaced=False)
VIRTUAL_MACHINE_CLASS = Resource(GROUP, VERSION, "virtualmachineclasses", "VirtualMachineClass", namespaced=False)
VIRTUAL_MACHINE_OPERATION = Resource(GROUP, VERSION, "virtualmachineoperations", "VirtualMachineOperation")
VIRTUAL_MACHINE_IP_ADDRESS = Resource(GROUP, VERSION, "virtualmachineipaddresses", "VirtualMachineIPAddress")
VIRTUAL_MACHINE_IP_ADDRESS_LEASE = Resource(
    GROUP, VERSION, "virtualmachineipaddressleases", "VirtualMachineIPAddressLease", namespaced=False)
RESOURCE_QUOTA = Resource("", "v1", "resourcequotas", "ResourceQuota")  # the project's quotas (discovery)
SERVICE_WITH_HEALTHCHECKS = Resource("network.deckhouse.io", "v1alpha1", "servicewithhealthchecks",
                                     "ServiceWithHealthchecks")
# a parent Deckhouse module's configuration (the CCM reads service-with-healthchecks'): cluster-scoped
MODULE_CONFIG = Resource("deckhouse.io", "v1alpha1", "moduleconfigs", "ModuleConfig", namespaced=False)

__all__ = [
    "API_VERSION", "CLUSTER_VIRTUAL_IMAGE", "GROUP", "MODULE_CONFIG", "RESOURCE_QUOTA", "SECRET", "SERVICE",
    "SERVICE_WITH_HEALTHCHECKS", "STORAGE_CLASS", "VERSION",
    "VIRTUAL_DISK", "VIRTUAL_DISK_SNAPSHOT", "VIRTUAL_IMAGE", "VIRTUAL_MACHINE",
    "VIRTUAL_MACHINE_BLOCK_DEVICE_ATTACHMENT",
    "VIRTUAL_MACHINE_CLASS", "VIRTUAL_MACHINE_IP_ADDRESS", "VIRTUAL_MACHINE_IP_ADDRESS_LEASE",
    "VIRTUAL_MACHINE_OPERATION", "VMBDA",
]

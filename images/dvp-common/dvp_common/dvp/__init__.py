# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Typed DVP operations over dvp_common.kube, with the label conventions and the ownership rule."""

from .attachments import Attachments
from .classes import VirtualMachineClasses
from .cloudinit import CloudInitSecrets
from .connection import DVPConnection, DVPSettings
from .disks import VirtualDisks
from .errors import AttachmentFailed, DuplicateObjects, OperationFailed, ProvisioningFailed, QuotaExceeded, VMFailed
from .images import Images
from .inventory import Inventory
from .ipaddresses import IPAddresses
from .networkpolicies import NetworkPolicies
from .operations import Operations
from .ownership import NotOurs, is_ours, owned_labels, require_ours
from .project import Project
from .services import Services, ServicesWithHealthchecks
from .snapshots import Snapshots
from .storageclasses import StorageClasses
from .vms import VirtualMachines

__all__ = [
    "AttachmentFailed", "Attachments", "CloudInitSecrets", "DVPConnection", "DVPSettings", "DuplicateObjects",
    "IPAddresses", "Images", "Inventory", "NetworkPolicies", "NotOurs", "OperationFailed", "Operations",
    "ProvisioningFailed",
    "Project", "QuotaExceeded", "Services", "ServicesWithHealthchecks",
    "Snapshots", "StorageClasses", "VMFailed", "VirtualDisks",
    "VirtualMachineClasses", "VirtualMachines", "is_ours", "owned_labels", "require_ours",
]

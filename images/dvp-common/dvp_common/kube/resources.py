# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Resource descriptors: where a kind lives in the REST API."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Resource:
    group: str  # "" for the core API
    version: str
    plural: str
    kind: str
    namespaced: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None, subresource: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        if name:
            base += f"/{name}"
            if subresource:
                base += f"/{subresource}"
        return base

    def __str__(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural


NAMESPACE = Resource("", "v1", "namespaces", "Namespace", namespaced=False)
NODE = Resource("", "v1", "nodes", "Node", namespaced=False)
POD = Resource("", "v1", "pods", "Pod")
SERVICE = Resource("", "v1", "services", "Service")
SECRET = Resource("", "v1", "secrets", "Secret")
CONFIG_MAP = Resource("", "v1", "configmaps", "ConfigMap")
NETWORK_POLICY = Resource("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy")
EVENT = Resource("", "v1", "events", "Event")
PERSISTENT_VOLUME = Resource("", "v1", "persistentvolumes", "PersistentVolume", namespaced=False)
PERSISTENT_VOLUME_CLAIM = Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim")
EVENT_V1 = Resource("events.k8s.io", "v1", "events", "Event")
LEASE = Resource("coordination.k8s.io", "v1", "leases", "Lease")
STORAGE_CLASS = Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", namespaced=False)
VOLUME_ATTACHMENT = Resource("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", namespaced=False)
CSI_NODE = Resource("storage.k8s.io", "v1", "csinodes", "CSINode", namespaced=False)
ENDPOINT_SLICE = Resource("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice")
CRD = Resource("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", namespaced=False)
VALIDATING_WEBHOOK_CONFIGURATION = Resource(
    "admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration",
    namespaced=False,
)
MUTATING_WEBHOOK_CONFIGURATION = Resource(
    "admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration",
    namespaced=False,
)

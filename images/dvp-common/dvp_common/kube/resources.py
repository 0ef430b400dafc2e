# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Resource descriptors: where a kind lives in the REST API. `path` is the one place URL paths are built: the
namespace and the name are checked against Kubernetes' name rules there and escaped, so no caller can step
outside the object it names."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from . import names


@dataclass(frozen=True)
class Resource:
    group: str  # "" for the core API
    version: str
    plural: str
    kind: str
    namespaced: bool = True
    name_rule: str = ""  # what apimachinery demands of this kind's names; "": names.rule_for(group, plural)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None, subresource: str | None = None) -> str:
        """Raises names.InvalidName (before any request) for a namespace, name or subresource that cannot be one."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += "/namespaces/" + _segment(names.check(namespace, names.LABEL, "namespace"))
        base += f"/{self.plural}"
        if name is not None:  # None: the collection; "" is no name at all (it would address the collection)
            rule = self.name_rule or names.rule_for(self.group, self.plural)
            base += "/" + _segment(names.check(name, rule, f"{self.kind} name"))
            if subresource:
                base += "/" + _segment(names.check(subresource, names.LABEL, "subresource"))
        return base

    def __str__(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural


def _segment(checked: str) -> str:
    """One path segment, escaped (after the name rules nothing is left to escape; this keeps it so)."""
    return quote(checked, safe=":")


NAMESPACE = Resource("", "v1", "namespaces", "Namespace", namespaced=False)
NODE = Resource("", "v1", "nodes", "Node", namespaced=False)
POD = Resource("", "v1", "pods", "Pod")
SERVICE = Resource("", "v1", "services", "Service")
SECRET = Resource("", "v1", "secrets", "Secret")
CONFIG_MAP = Resource("", "v1", "configmaps", "ConfigMap")
NETWORK_POLICY = Resource("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy")
EVENT = Resource("", "v1", "events", "Event")
# Deckhouse's node-manager kinds the module reads
NODE_GROUP = Resource("deckhouse.io", "v1", "nodegroups", "NodeGroup", namespaced=False)
DVP_INSTANCE_CLASS = Resource("deckhouse.io", "v1alpha1", "dvpinstanceclasses", "DVPInstanceClass", namespaced=False)
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

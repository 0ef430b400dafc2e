# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The snapshots the report judges, read through dvp_common's client: GET (list) requests only, nothing written.

A kind the API does not serve (no DeckhouseMachine CRD in the guest, no ServiceWithHealthchecks in the parent)
reads as none. Of the project's Secrets only the cloud-init ones are listed (a field selector on the type): the
credentials and the like never leave the API server.
"""

from __future__ import annotations

from ..dvp import resources as r
from ..kube import KubeClient, NotFound, Resource
from ..kube.resources import (
    DVP_INSTANCE_CLASS,
    NETWORK_POLICY,
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    SECRET,
    SERVICE,
)
from .plan import CLOUD_INIT_TYPE, MACHINES_NAMESPACE, Guest, Parent

DECKHOUSE_MACHINE = Resource("infrastructure.cluster.x-k8s.io", "v1alpha1", "deckhousemachines", "DeckhouseMachine")


def _all(client: KubeClient, res: Resource, namespace: str | None = None, **kw) -> tuple[dict, ...]:
    try:
        return tuple(client.list_all(res, namespace, **kw).items)
    except NotFound:  # the kind is not served there
        return ()


def guest(client: KubeClient) -> Guest:
    return Guest(nodes=_all(client, NODE), volumes=_all(client, PERSISTENT_VOLUME),
                 claims=_all(client, PERSISTENT_VOLUME_CLAIM), machines=_all(client, DECKHOUSE_MACHINE,
                                                                             MACHINES_NAMESPACE),
                 services=_all(client, SERVICE), instance_classes=_all(client, DVP_INSTANCE_CLASS))


def parent(client: KubeClient, namespace: str) -> Parent:
    return Parent(vms=_all(client, r.VIRTUAL_MACHINE, namespace), disks=_all(client, r.VIRTUAL_DISK, namespace),
                  attachments=_all(client, r.VMBDA, namespace),
                  addresses=_all(client, r.VIRTUAL_MACHINE_IP_ADDRESS, namespace),
                  secrets=_all(client, SECRET, namespace, field_selector=f"type={CLOUD_INIT_TYPE}"),
                  services=_all(client, SERVICE, namespace),
                  healthchecks=_all(client, r.SERVICE_WITH_HEALTHCHECKS, namespace),
                  network_policies=_all(client, NETWORK_POLICY, namespace))

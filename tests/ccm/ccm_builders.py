# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Objects as the APIs hold them: guest Nodes and Services, DVP VMs (as capdvp or dhctl label them)."""

from __future__ import annotations

from typing import Any

from dvp_common.dvp import labels as L

UNINIT = {"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true", "effect": "NoSchedule"}


def vm(name: str, uuid: str, *, hostname: str | None = None, ip: str = "10.66.0.10", phase: str = "Running",
       component: str | None = L.CAPDVP, namespace: str = "dvp-project", extra_labels: dict | None = None,
       node_selector: dict | None = None, running_since: str | None = None) -> dict:
    labels = {L.MANAGED_BY: L.MANAGED_BY_VALUE, L.HOSTNAME: hostname or name, **(extra_labels or {})}
    if uuid:
        labels[L.CLUSTER_UUID] = uuid
    if component:
        labels[L.COMPONENT] = component
    spec: dict[str, Any] = {"virtualMachineClassName": "generic", "cpu": {"cores": 2}, "memory": {"size": "4Gi"},
                            "blockDeviceRefs": [{"kind": "VirtualDisk", "name": f"{name}-boot"}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    status: dict[str, Any] = {"phase": phase}
    if ip:
        status["ipAddress"] = ip
    if running_since:
        status["conditions"] = [{"type": "Running", "status": "True" if phase == "Running" else "False",
                                 "lastTransitionTime": running_since}]
    return {"apiVersion": "virtualization.deckhouse.io/v1alpha2", "kind": "VirtualMachine",
            "metadata": {"name": name, "namespace": namespace, "labels": labels}, "spec": spec, "status": status}


def node(name: str, *, provider_id: str = "", taints: list | None = None, ready: bool | None = True,
         since: str = "2026-01-01T00:00:00Z", labels: dict | None = None, addresses: list | None = None) -> dict:
    spec: dict[str, Any] = {}
    if provider_id:
        spec["providerID"] = provider_id
    if taints:
        spec["taints"] = taints
    status: dict[str, Any] = {}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False",
                                 "lastTransitionTime": since}]
    if addresses:
        status["addresses"] = addresses
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}}, "spec": spec,
            "status": status}


def service(name: str, namespace: str = "default", *, ports: list | None = None, etp: str | None = None,
            hc_port: int | None = None, lb_class: str | None = None, svc_type: str = "LoadBalancer",
            annotations: dict | None = None, **spec_extra: Any) -> dict:
    spec: dict[str, Any] = {"type": svc_type, "selector": {"app": name},
                            "ports": ports if ports is not None else
                            [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080, "nodePort": 30080}]}
    if etp:
        spec["externalTrafficPolicy"] = etp
    if hc_port:
        spec["healthCheckNodePort"] = hc_port
    if lb_class:
        spec["loadBalancerClass"] = lb_class
    spec.update(spec_extra)
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace, "annotations": annotations or {}}, "spec": spec}

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Renders capi/ the way node-manager does, through Helm's Go template engine (helm_python) in strict mode
(missingkey=error): a throwaway chart standing in for node-manager's, holding our capi/ files and helm_lib.

v1: node-manager's Helm runs `tpl` over instance-class.checksum with {.. nodeGroup} and over
machine-template.yaml with {Values, Files, Release, Chart, nodeGroup, zoneName, templateName,
instanceClassChecksum}. v2: node-controller parses template.yaml and renders its `template` with the roots
.instanceClass .provider .zone .nodeGroup.name .cluster. `StandIn` plays node-manager's part for a cloud NodeGroup
(template and MachineDeployment per zone) on a real API, for the real CAPI controller."""

import base64
import contextlib
import hashlib
import json
import os
import shutil
import tempfile

import helm_python
import yaml
from helm_python import _native

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

V1 = """\
{{- $ctx := dict "Values" .Values "Files" .Files "Release" .Release "Chart" .Chart "Template" .Template
  "nodeGroup" .Values.nodeGroup "zoneName" .Values.zoneName "templateName" "" "instanceClassChecksum" "" }}
{{- $checksum := tpl (.Files.Get "capi/instance-class.checksum") $ctx }}
{{- $_ := set $ctx "instanceClassChecksum" $checksum }}
{{- $hash := sha256sum (printf "%s%s%s" .Values.clusterUUID .Values.zoneName $checksum) | trunc 8 }}
{{- $_ := set $ctx "templateName" (printf "%s-%s" .Values.nodeGroup.name $hash) }}
checksum: {{ $checksum | quote }}
---
{{ tpl (.Files.Get "capi/machine-template.yaml") $ctx }}
---
{{ tpl (.Files.Get "capi/cluster.yaml") (dict "Template" .Template "dvp" .Values.dvp "clusterName" "dvp") }}
"""

V2 = """\
{{ tpl .Values.template (dict "Template" .Template "instanceClass" .Values.instanceClass "provider" .Values.provider
  "zone" .Values.zone "nodeGroup" (dict "name" .Values.nodeGroupName) "cluster" .Values.cluster) }}
"""

CLUSTER = """\
{{ tpl (.Files.Get "capi/cluster.yaml") (dict "Template" .Template "dvp" .Values.dvp "clusterName" "dvp") }}
"""


class RenderFailed(Exception):
    pass


def _render(template: str, values: dict, with_capi: bool) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        chart = os.path.join(tmp, "node-manager")
        os.makedirs(os.path.join(chart, "templates"))
        with open(os.path.join(chart, "Chart.yaml"), "w") as f:
            f.write("apiVersion: v2\nname: node-manager\nversion: 0.1.0\n")
        with open(os.path.join(chart, "templates", "capi.yaml"), "w") as f:
            f.write(template)
        if with_capi:
            shutil.copytree(os.path.join(ROOT, "capi"), os.path.join(chart, "capi"))
            shutil.copytree(os.path.join(ROOT, "charts", "helm_lib"), os.path.join(chart, "charts", "helm_lib"))
        with helm_python.Chart.load(chart) as ch:
            try:
                raw = _native.call_string("helm_render", ch._raw(), json.dumps(values),
                                          json.dumps({"name": "node-manager", "namespace": "d8-cloud-instance-manager",
                                                      "strict": True}))
            except helm_python.HelmError as exc:
                raise RenderFailed(str(exc)) from None
    text = json.loads(raw)["node-manager/templates/capi.yaml"]
    return [d for d in yaml.safe_load_all(text) if d is not None]


def render_v1(node_group: str, instance_class: dict, zone: str = "zone-a",
              cluster_uuid: str = "3b5058e1-e93b-4dfa-be32-395ef4b3da45",
              dvp: dict | None = None) -> tuple[str, dict, dict]:
    """(checksum, DeckhouseMachineTemplate, DeckhouseCluster); `dvp`: the registration's `dvp` subtree."""
    values = {"nodeGroup": {"name": node_group, "instanceClass": instance_class}, "zoneName": zone,
              "clusterUUID": cluster_uuid, "dvp": dvp or {}}
    checksum, template, cluster = _render(V1, values, with_capi=True)
    return checksum["checksum"], template, cluster


def contract_v2() -> dict:
    with open(os.path.join(ROOT, "capi", "template.yaml")) as f:
        return yaml.safe_load(f)


def render_v2(instance_class: dict, provider: dict | None = None, zone: str = "zone-a", node_group: str = "worker",
              cluster: dict | None = None) -> dict:
    values = {"template": contract_v2()["template"], "instanceClass": instance_class, "provider": provider or {},
              "zone": zone, "nodeGroupName": node_group,
              "cluster": cluster or {"uuid": "3b5058e1-e93b-4dfa-be32-395ef4b3da45", "podSubnet": "10.111.0.0/16"}}
    [obj] = _render(V2, values, with_capi=False)
    return obj


# node-manager's part for a cloud NodeGroup ------------------------------------------------------------------------

NODE_GROUP_GROUP, CAPI_GROUP, INFRA_GROUP = "deckhouse.io", "cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"
NODE_GROUP_LABEL = "node-group"
CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name"


def _digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:8]


class StandIn:
    """What node-manager makes of a cloud NodeGroup, per zone of it: the DeckhouseMachineTemplate our capi/template.yaml
    (contract v2) renders from the group's DVPInstanceClass (named for the zone and the rendered spec: templates are
    immutable, a changed class makes a new one and a rollout), and a MachineDeployment of `minPerZone` replicas in
    that zone's failure domain, with the group's bootstrap Secret. Reads the NodeGroup and the class from the API,
    writes create-or-patch (idempotent); the real CAPI controller takes it from there."""

    def __init__(self, client, namespace: str, cluster_name: str, cluster: dict, provider: dict | None = None,
                 default_zones: tuple[str, ...] = ()) -> None:
        from dvp_common.kube import Resource

        self.client, self.ns, self.cluster_name = client, namespace, cluster_name
        self.cluster, self.provider, self.default_zones = cluster, provider or {}, default_zones
        self.node_groups = Resource(NODE_GROUP_GROUP, "v1", "nodegroups", "NodeGroup", namespaced=False)
        self.instance_classes = Resource(NODE_GROUP_GROUP, "v1alpha1", "dvpinstanceclasses", "DVPInstanceClass",
                                         namespaced=False)
        self.templates = Resource(INFRA_GROUP, "v1alpha1", "deckhousemachinetemplates", "DeckhouseMachineTemplate")
        self.deployments = Resource(CAPI_GROUP, "v1beta2", "machinedeployments", "MachineDeployment")
        self.secrets = Resource("", "v1", "secrets", "Secret")

    def ensure_cluster(self, dvp: dict, kubeconfig: str) -> None:
        """What node-manager makes once for cloud nodes: our capi/cluster.yaml's DeckhouseCluster, rendered with the
        registration's `dvp` subtree; the CAPI Cluster over it; the kubeconfig Secret through which CAPI's
        ClusterCache reaches the nodes' cluster (the guest itself). Idempotent."""
        from dvp_common.kube import AlreadyExists, Resource

        [infra] = _render(CLUSTER, {"dvp": dvp}, with_capi=True)
        labels = {CLUSTER_NAME_LABEL: self.cluster_name}
        objects = [
            (Resource(INFRA_GROUP, "v1alpha1", "deckhouseclusters", "DeckhouseCluster"),
             {"metadata": {**infra["metadata"], "namespace": self.ns}, "spec": infra.get("spec") or {}}),
            (Resource(CAPI_GROUP, "v1beta2", "clusters", "Cluster"), {"metadata": {"name": self.cluster_name}, "spec": {
                "infrastructureRef": {"apiGroup": INFRA_GROUP, "kind": "DeckhouseCluster",
                                      "name": infra["metadata"]["name"]}}}),
            (self.secrets, {"metadata": {"name": f"{self.cluster_name}-kubeconfig", "labels": labels},
                            "type": "cluster.x-k8s.io/secret",
                            "data": {"value": base64.b64encode(kubeconfig.encode()).decode()}}),
        ]
        for res, body in objects:
            with contextlib.suppress(AlreadyExists):
                self.client.create(res, body, self.ns)

    def converge(self, name: str) -> dict[str, str]:
        """zone -> MachineDeployment name, for the NodeGroup `name`."""
        ng = self.client.get(self.node_groups, name)
        cloud = ng["spec"]["cloudInstances"]
        ic = self.client.get(self.instance_classes, cloud["classReference"]["name"])
        secret = f"{name}-bootstrap"
        self._apply(self.secrets, secret, {"type": "cluster.x-k8s.io/secret", "data": {
            "value": base64.b64encode(b"#cloud-config\n").decode()}}, name)
        out = {}
        for zone in cloud.get("zones") or self.default_zones:
            rendered = render_v2(ic["spec"], self.provider, zone, name, self.cluster)
            template = f"{name}-{_digest(zone, rendered['spec'])}"
            self._apply(self.templates, template, {"spec": rendered["spec"]}, name, create_only=True)
            deployment = f"{name}-{_digest(self.cluster_name, zone)}"
            self._apply(self.deployments, deployment, {"spec": {
                "clusterName": self.cluster_name, "replicas": cloud["minPerZone"],
                "selector": {"matchLabels": {NODE_GROUP_LABEL: name, "zone": zone}},
                "template": {"metadata": {"labels": {NODE_GROUP_LABEL: name, "zone": zone}}, "spec": {
                    "clusterName": self.cluster_name, "bootstrap": {"dataSecretName": secret},
                    "failureDomain": zone, "infrastructureRef": {
                        "apiGroup": INFRA_GROUP, "kind": "DeckhouseMachineTemplate", "name": template}}}}}, name)
            out[zone] = deployment
        return out

    def _apply(self, res, name: str, body: dict, group: str, create_only: bool = False) -> None:
        from dvp_common.kube import AlreadyExists

        labels = {NODE_GROUP_LABEL: group, CLUSTER_NAME_LABEL: self.cluster_name}
        try:
            self.client.create(res, {"metadata": {"name": name, "labels": labels}, **body}, self.ns)
        except AlreadyExists:
            if not create_only:
                self.client.patch(res, name, body, self.ns)

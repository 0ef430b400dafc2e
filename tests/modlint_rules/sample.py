# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""A small module that passes every modlint rule, on disk and as rendered objects; tests break one thing each."""

from __future__ import annotations

import copy
import pathlib
import textwrap

from modlint import Rendered

MODULE = "test-module"
NS = "d8-test-module"
REGISTRY = "registry.example.com/deckhouse"
DIGEST = "sha256:" + "a" * 64
# Russian text written with escapes: this file itself must stay free of Cyrillic.
RU = "\u0442\u0435\u0441\u0442"  # "test"
HEADER = "# Copyright 2026 The cloud-provider-dvp Authors\n# SPDX-License-Identifier: Apache-2.0\n"

FILES = {
    "module.yaml": f"""\
        name: {MODULE}
        namespace: {NS}
        stage: Experimental
        descriptions:
          en: A test module.
          ru: {RU}.
        requirements:
          deckhouse: ">= 1.72"
        """,
    ".helmignore": "crds\nimages\nhooks\nopenapi\ndocs\n",
    "oss.yaml": """\
        - id: kubernetes-csi
          name: Kubernetes CSI
          description: Container Storage Interface.
          link: https://github.com/container-storage-interface/spec
          license: Apache License 2.0
          version: 1.12.0
        """,
    "openapi/config-values.yaml": """\
        type: object
        properties:
          logLevel:
            type: string
            enum: [Debug, Info]
            description: Log level.
          highAvailability:
            type: boolean
        """,
    "openapi/doc-ru-config-values.yaml": f"properties:\n  logLevel:\n    description: {RU}\n",
    "openapi/values.yaml": "x-extend:\n  schema: config-values.yaml\ntype: object\n",
    "crds/widget.yaml": f"""\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: widgets.deckhouse.io
          labels:
            module: {MODULE}
        spec:
          group: deckhouse.io
          versions:
          - name: v1
            schema:
              openAPIV3Schema:
                type: object
                properties:
                  phase:
                    type: string
                    enum: [Ready, V1.2]
        """,
    "crds/doc-ru-widget.yaml": "spec:\n  versions:\n  - name: v1\n",
    "docs/README.md": "---\ntitle: Test module\n---\n\nWhat it does.\n",
    "docs/README.ru.md": f"---\ntitle: {RU}\n---\n\n{RU}.\n",
    "hooks/discover.py": HEADER + '"""A hook."""\n',
    "images/controller/mount-points.yaml": "dirs:\n  - /tmp\n",
    "templates/deployment.yaml": "{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}\n"
                                 "{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}\nkind: Deployment\n",
}


def write_module(root: pathlib.Path, files: dict[str, str | None] | None = None) -> pathlib.Path:
    """The good module, with `files` overriding (None removes a file)."""
    merged = {**FILES, **(files or {})}
    for rel, content in merged.items():
        if content is None:
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content))
    return root


def labels(**extra: str) -> dict:
    return {"module": MODULE, "heritage": "deckhouse", **extra}


def container(name: str = "controller", port: int = 8080) -> dict:
    return {
        "name": name,
        "image": f"{REGISTRY}@{DIGEST}",
        "ports": [{"name": "http", "containerPort": port}],
        "securityContext": {"readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False,
                            "capabilities": {"drop": ["ALL"]}},
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"}},
        "readinessProbe": {"httpGet": {"path": "/readyz", "port": "http"}},
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi", "ephemeral-storage": "50Mi"}},
        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
        "env": [{"name": "LOG_LEVEL", "value": "Info"}],
    }


def good_objects() -> list[Rendered]:
    app = {"app": "controller"}
    objs = [
        ("templates/namespace.yaml", {"apiVersion": "v1", "kind": "Namespace",
                                      "metadata": {"name": NS, "labels": labels()}}),
        ("templates/kube-rbac-proxy.yaml", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "kube-rbac-proxy-ca.crt", "namespace": NS, "labels": labels()}, "data": {"ca.crt": "x"}}),
        ("templates/controller/deployment.yaml", {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "controller", "namespace": NS, "labels": labels(**app)},
            "spec": {
                "revisionHistoryLimit": 2,
                "selector": {"matchLabels": app},
                "template": {"metadata": {"labels": app}, "spec": {
                    "priorityClassName": "cluster-medium",
                    "serviceAccountName": "controller",
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 64535, "runAsGroup": 64535,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [container()],
                    "volumes": [{"name": "tmp", "emptyDir": {}}],
                }},
            }}),
        ("templates/controller/deployment.yaml", {
            "apiVersion": "autoscaling.k8s.io/v1", "kind": "VerticalPodAutoscaler",
            "metadata": {"name": "controller", "namespace": NS, "labels": labels(**app)},
            "spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "controller"},
                     "updatePolicy": {"updateMode": "InPlaceOrRecreate"},
                     "resourcePolicy": {"containerPolicies": [{
                         "containerName": "controller", "minAllowed": {"cpu": "10m", "memory": "32Mi"},
                         "maxAllowed": {"cpu": "200m", "memory": "256Mi"}}]}}}),
        ("templates/controller/deployment.yaml", {
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "controller", "namespace": NS, "labels": labels(**app)},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": app}}}),
        ("templates/controller/service.yaml", {
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "controller", "namespace": NS, "labels": labels(**app)},
            "spec": {"selector": app, "ports": [{"name": "http", "port": 443, "targetPort": "http"}]}}),
        ("templates/controller/rbac-for-us.yaml", {
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "controller", "namespace": NS, "labels": labels()}}),
        ("templates/controller/rbac-for-us.yaml", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": f"d8:{MODULE}:controller", "labels": labels()},
            "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}]}),
        ("templates/controller/rbac-for-us.yaml", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": f"d8:{MODULE}:controller", "labels": labels()},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": f"d8:{MODULE}:controller"},
            "subjects": [{"kind": "ServiceAccount", "name": "controller", "namespace": NS}]}),
        ("templates/controller/rbac-for-us.yaml", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "controller", "namespace": NS, "labels": labels()},
            "rules": [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                       "verbs": ["get", "create", "update"]}]}),
        ("templates/user-authz-cluster-roles.yaml", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": f"d8:user-authz:{MODULE}:cluster-admin", "labels": labels(),
                         "annotations": {"user-authz.deckhouse.io/access-level": "ClusterAdmin"}},
            "rules": [{"apiGroups": ["deckhouse.io"], "resources": ["widgets"], "verbs": ["get"]}]}),
        ("templates/webhook/webhook.yaml", {
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": f"d8-{MODULE}", "labels": labels(), "annotations": {"werf.io/weight": "10"}},
            "webhooks": []}),
    ]
    return [Rendered(copy.deepcopy(obj), source) for source, obj in objs]


def find(objects: list[Rendered], kind: str, name: str = "") -> dict:
    """The first object of `kind` (and `name`), to mutate in place."""
    for item in objects:
        if item.kind == kind and (not name or item.name == name):
            return item.obj
    raise KeyError(f"{kind} {name}")


def pod(objects: list[Rendered]) -> dict:
    return find(objects, "Deployment")["spec"]["template"]["spec"]

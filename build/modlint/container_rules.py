# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DMT `container` linter rules over rendered objects."""

from __future__ import annotations

import pathlib

import yaml
from dvp_common.quantity import parse_quantity

from .files import walk
from .findings import Finding, Rendered
from .pods import CONTROLLERS, containers, workloads

LINTER = "container"
PRIORITY_CLASSES = ("system-node-critical", "system-cluster-critical", "cluster-critical", "cluster-medium",
                    "cluster-low", "production-high", "production-medium", "production-low", "staging", "develop",
                    "standby")
# kind -> the apiVersion it must use (older ones are deprecated or removed)
API_VERSIONS = {
    "Role": "rbac.authorization.k8s.io/v1", "ClusterRole": "rbac.authorization.k8s.io/v1",
    "RoleBinding": "rbac.authorization.k8s.io/v1", "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
    "Deployment": "apps/v1", "DaemonSet": "apps/v1", "StatefulSet": "apps/v1",
    "Ingress": "networking.k8s.io/v1", "NetworkPolicy": "networking.k8s.io/v1",
    "PriorityClass": "scheduling.k8s.io/v1", "PodDisruptionBudget": "policy/v1",
    "CSIDriver": "storage.k8s.io/v1", "StorageClass": "storage.k8s.io/v1",
    "ValidatingWebhookConfiguration": "admissionregistration.k8s.io/v1",
    "MutatingWebhookConfiguration": "admissionregistration.k8s.io/v1",
    "CustomResourceDefinition": "apiextensions.k8s.io/v1", "CronJob": "batch/v1",
    "VerticalPodAutoscaler": "autoscaling.k8s.io/v1",
}
NON_ROOT_IDS = ((65534, 65534), (64535, 64535))
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
EXEMPT_MOUNTS = ("/sys", "/dev", "/proc")


def recommended_labels(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item in objects:
        labels = (item.obj.get("metadata") or {}).get("labels") or {}
        for label in ("module", "heritage"):
            if label not in labels:
                out.append(item.finding(LINTER, "object-recommended-labels", f"label {label!r} is missing"))
    return out


def namespace_labels(objects: list[Rendered], **_) -> list[Finding]:
    rules_in = {i.namespace for i in objects if i.kind == "PrometheusRule"}
    return [i.finding(LINTER, "object-namespace-labels",
                      'a namespace with PrometheusRules needs prometheus.deckhouse.io/rules-watcher-enabled: "true"')
            for i in objects if i.kind == "Namespace" and i.name.startswith("d8-") and i.name in rules_in
            and (i.obj["metadata"].get("labels") or {}).get("prometheus.deckhouse.io/rules-watcher-enabled") != "true"]


def api_version(objects: list[Rendered], **_) -> list[Finding]:
    return [i.finding(LINTER, "object-api-version", f"apiVersion {i.obj.get('apiVersion')} is deprecated: use "
                      f"{API_VERSIONS[i.kind]}")
            for i in objects if i.kind in API_VERSIONS and i.obj.get("apiVersion") != API_VERSIONS[i.kind]]


def priority_class(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item, spec in workloads(objects):
        if item.kind not in CONTROLLERS:
            continue
        value = spec.get("priorityClassName")
        if value not in PRIORITY_CLASSES:
            out.append(item.finding(LINTER, "object-priority-class",
                                    f"priorityClassName {value!r} is not one of the allowed classes"))
    return out


def dns_policy(objects: list[Rendered], **_) -> list[Finding]:
    return [item.finding(LINTER, "dns-policy", "hostNetwork needs dnsPolicy: ClusterFirstWithHostNet")
            for item, spec in workloads(objects)
            if spec.get("hostNetwork") and spec.get("dnsPolicy") != "ClusterFirstWithHostNet"]


def controller_security_context(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item, spec in workloads(objects):
        ctx = spec.get("securityContext")
        if not ctx:
            out.append(item.finding(LINTER, "controller-security-context", "pod securityContext is missing"))
            continue
        missing = [k for k in ("runAsNonRoot", "runAsUser", "runAsGroup") if k not in ctx]
        if missing:
            out.append(item.finding(LINTER, "controller-security-context",
                                    f"pod securityContext misses {', '.join(missing)}"))
            continue
        ids = (ctx["runAsUser"], ctx["runAsGroup"])
        if ctx["runAsNonRoot"] and ids not in NON_ROOT_IDS:
            out.append(item.finding(LINTER, "controller-security-context",
                                    f"non-root pod runs as {ids[0]}:{ids[1]}, not 65534:65534 or 64535:64535"))
        if not ctx["runAsNonRoot"] and ids != (0, 0):
            out.append(item.finding(LINTER, "controller-security-context",
                                    f"root pod runs as {ids[0]}:{ids[1]}, not 0:0"))
    return out


def revision_history_limit(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item in objects:
        if item.kind != "Deployment":
            continue
        limit = (item.obj.get("spec") or {}).get("revisionHistoryLimit")
        if limit is None or limit > 2:
            out.append(item.finding(LINTER, "object-revision-history-limit",
                                    f"revisionHistoryLimit is {limit}, must be set to 2 or less"))
    return out


def duplicates(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item, spec in workloads(objects):
        names = [c.get("name") for c in containers(spec)]
        for name in sorted({n for n in names if names.count(n) > 1}):
            out.append(item.finding(LINTER, "name-duplicates", "duplicate container name", name))
        for c in containers(spec):
            env = [e.get("name") for e in c.get("env") or []]
            for name in sorted({n for n in env if env.count(n) > 1}):
                out.append(item.finding(LINTER, "env-variables-duplicates", f"duplicate env {name}", c.get("name")))
    return out


def container_security(objects: list[Rendered], **_) -> list[Finding]:
    """security-context, read-only-root-filesystem, no-new-privileges, seccomp-profile."""
    out = []
    for item, spec in workloads(objects):
        pod_seccomp = ((spec.get("securityContext") or {}).get("seccompProfile") or {}).get("type")
        for c in containers(spec):
            name = c.get("name", "")
            ctx = c.get("securityContext")
            if not ctx:
                out.append(item.finding(LINTER, "security-context", "container securityContext is missing", name))
                ctx = {}
            if ctx.get("readOnlyRootFilesystem") is not True:
                out.append(item.finding(LINTER, "read-only-root-filesystem", "readOnlyRootFilesystem must be true",
                                        name))
            if ctx.get("allowPrivilegeEscalation") is not False:
                out.append(item.finding(LINTER, "no-new-privileges", "allowPrivilegeEscalation must be false", name))
            seccomp = (ctx.get("seccompProfile") or {}).get("type") or pod_seccomp
            if seccomp not in ("RuntimeDefault", "Localhost"):
                out.append(item.finding(LINTER, "seccomp-profile",
                                        f"seccompProfile.type is {seccomp!r}: set RuntimeDefault", name))
    return out


def ports(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item, spec in workloads(objects):
        for c in containers(spec):
            for port in c.get("ports") or []:
                number = port.get("containerPort", 0)
                host = spec.get("hostNetwork") or "hostPort" in port
                if host and not all(4200 <= p <= 4299 for p in (number, port.get("hostPort", number))):
                    out.append(item.finding(LINTER, "host-network-ports",
                                            f"host port {port.get('hostPort', number)} is outside 4200-4299",
                                            c.get("name", "")))
                if number <= 1024:
                    out.append(item.finding(LINTER, "ports", f"containerPort {number} must be above 1024",
                                            c.get("name", "")))
    return out


def images(objects: list[Rendered], registry: str | tuple[str, ...] = "registry.example.com/deckhouse",
           **_) -> list[Finding]:
    """image-digest (a module registry repository + digest, as helm_lib_module_image gives) and image-pull-policy."""
    allowed = (registry,) if isinstance(registry, str) else tuple(registry)
    out = []
    for item, spec in workloads(objects):
        for c in containers(spec):
            name, image = c.get("name", ""), str(c.get("image", ""))
            repo, _, digest = image.partition("@")
            if repo not in allowed or not digest.startswith("sha256:"):
                out.append(item.finding(LINTER, "image-digest", f"image {image!r} is not "
                                        f"<{' or '.join(allowed)}>@sha256:<digest> (helm_lib_module_image)", name))
            if c.get("imagePullPolicy") not in (None, "IfNotPresent"):
                out.append(item.finding(LINTER, "image-pull-policy",
                                        f"imagePullPolicy {c['imagePullPolicy']} must be unset or IfNotPresent", name))
    return out


def resources(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item, spec in workloads(objects):
        for c in containers(spec):
            value = ((c.get("resources") or {}).get("requests") or {}).get("ephemeral-storage")
            if value is None or _quantity_or_zero(value) <= 0:
                out.append(item.finding(LINTER, "resources", "resources.requests.ephemeral-storage must be set above 0",
                                        c.get("name", "")))
    return out


def _quantity_or_zero(value: object):
    try:
        return parse_quantity(value).amount
    except ValueError:
        return 0


def probes(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item, spec in workloads(objects):
        if item.kind not in CONTROLLERS:
            continue
        for c in containers(spec, init=False):
            for field, rule in (("livenessProbe", "liveness-probe"), ("readinessProbe", "readiness-probe")):
                probe = c.get(field)
                if probe is None:
                    out.append(item.finding(LINTER, rule, f"{field} is missing", c.get("name", "")))
                elif sum(h in probe for h in PROBE_HANDLERS) != 1:
                    out.append(item.finding(LINTER, rule, f"{field} needs exactly one handler", c.get("name", "")))
    return out


def declared_mount_points(module_dir: pathlib.Path) -> set[str]:
    out = set()
    for path in walk(module_dir, "images"):
        if path.name == "mount-points.yaml":
            out |= {str(d).rstrip("/") or "/" for d in ((yaml.safe_load(path.read_text()) or {}).get("dirs") or [])}
    return out


def _exempt(mount: str) -> bool:
    return any(mount == p or mount.startswith(p + "/") for p in EXEMPT_MOUNTS)


def mount_points(objects: list[Rendered], module_dir: pathlib.Path | None = None, **_) -> list[Finding]:
    """mount-points (every mount declared in images/*/mount-points.yaml) and sys-cgroup-mount."""
    declared = declared_mount_points(module_dir) if module_dir else set()
    out = []
    for item, spec in workloads(objects):
        for c in containers(spec):
            mounts = [m.get("mountPath", "").rstrip("/") for m in c.get("volumeMounts") or []]
            for mount in mounts:
                if not _exempt(mount) and mount not in declared:
                    out.append(item.finding(LINTER, "mount-points",
                                            f"{mount} is not declared in any images/*/mount-points.yaml",
                                            c.get("name", "")))
            if "/sys" in mounts and "/sys/fs/cgroup" not in mounts:
                out.append(item.finding(LINTER, "sys-cgroup-mount", "mounting /sys needs /sys/fs/cgroup too",
                                        c.get("name", "")))
    return out


RULES = (recommended_labels, namespace_labels, api_version, priority_class, dns_policy, controller_security_context,
         revision_history_limit, duplicates, container_security, ports, images, resources, probes, mount_points)

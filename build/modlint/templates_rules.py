# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DMT `templates` linter rules: rendered objects (VPA, PDB, Services, webhooks) and template sources."""

from __future__ import annotations

import pathlib
import re

from dvp_common.quantity import parse_quantity

from .container_rules import declared_mount_points
from .files import rel, walk
from .findings import WARNING, Finding, Rendered
from .pods import CONTROLLERS, containers, pod_labels, workloads

LINTER = "templates"
VPA_MODES = ("Off", "Initial", "Recreate", "InPlaceOrRecreate")
KUBE_RBAC_PROXY_CA = "kube-rbac-proxy-ca.crt"


def _vpa_for(item: Rendered, vpas: list[Rendered]) -> Rendered | None:
    for vpa in vpas:
        ref = (vpa.obj.get("spec") or {}).get("targetRef") or {}
        if vpa.namespace == item.namespace and ref.get("kind") == item.kind and ref.get("name") == item.name:
            return vpa
    return None


def _bounds_problem(policy: dict) -> str | None:
    low, high = policy.get("minAllowed") or {}, policy.get("maxAllowed") or {}
    for resource in ("cpu", "memory"):
        if resource not in low or resource not in high:
            return f"needs minAllowed and maxAllowed {resource}"
        try:
            if parse_quantity(low[resource]) >= parse_quantity(high[resource]):
                return f"minAllowed {resource} must be below maxAllowed"
        except ValueError as exc:
            return str(exc)
    return None


def vpa(objects: list[Rendered], **_) -> list[Finding]:
    vpas = [i for i in objects if i.kind == "VerticalPodAutoscaler"]
    out = []
    for item, spec in workloads(objects):
        if item.kind not in CONTROLLERS:
            continue
        found = _vpa_for(item, vpas)
        if found is None:
            out.append(item.finding(LINTER, "vpa", "no VerticalPodAutoscaler targets this controller"))
            continue
        vspec = found.obj.get("spec") or {}
        mode = (vspec.get("updatePolicy") or {}).get("updateMode", "Recreate")
        if mode not in VPA_MODES:
            out.append(item.finding(LINTER, "vpa", f"VPA {found.name}: updateMode {mode} is not one of "
                                                   f"{', '.join(VPA_MODES)}"))
        if mode == "Off":
            continue
        policies = {p.get("containerName"): p for p in (vspec.get("resourcePolicy") or {}).get(
            "containerPolicies") or []}
        names = [c.get("name") for c in containers(spec, init=False)]
        for name in names:
            if name not in policies:
                out.append(item.finding(LINTER, "vpa", f"VPA {found.name} has no containerPolicy", name))
            elif problem := _bounds_problem(policies[name]):
                out.append(item.finding(LINTER, "vpa", f"VPA {found.name}: {problem}", name))
        for name in sorted(set(policies) - set(names)):
            out.append(item.finding(LINTER, "vpa", f"VPA {found.name} has a policy for a missing container", name))
    return out


def pdb(objects: list[Rendered], **_) -> list[Finding]:
    pdbs = [i for i in objects if i.kind == "PodDisruptionBudget"]
    out = []
    for item in objects:
        if item.kind not in ("Deployment", "StatefulSet"):
            continue
        labels = pod_labels(item)
        matching = [p for p in pdbs if p.namespace == item.namespace
                    and (p.obj.get("spec") or {}).get("selector", {}).get("matchLabels")
                    and (p.obj["spec"]["selector"]["matchLabels"].items() <= labels.items())]
        if not matching:
            out.append(item.finding(LINTER, "pdb", "no PodDisruptionBudget selects this controller's pods"))
        for p in matching:
            if any(a.startswith("helm.sh/hook") for a in (p.obj["metadata"].get("annotations") or {})):
                out.append(item.finding(LINTER, "pdb", f"PDB {p.name} must not carry Helm hook annotations"))
    return out


def kube_rbac_proxy(objects: list[Rendered], **_) -> list[Finding]:
    namespaces = {i.name for i in objects if i.kind == "Namespace"}
    have = {i.namespace for i in objects if i.kind == "ConfigMap" and i.name == KUBE_RBAC_PROXY_CA}
    return [Finding(LINTER, "kube-rbac-proxy", f"ConfigMap {KUBE_RBAC_PROXY_CA} is missing "
                    "(helm_lib_kube_rbac_proxy_ca_certificate)", kind="Namespace", name=ns)
            for ns in sorted(namespaces) if ns.startswith("d8-") and ns not in have]


def service_port(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item in objects:
        if item.kind != "Service":
            continue
        for port in (item.obj.get("spec") or {}).get("ports") or []:
            if not isinstance(port.get("targetPort"), str):
                out.append(item.finding(LINTER, "service-port",
                                        f"port {port.get('name', port.get('port'))}: targetPort must be a named port"))
    return out


def webhook_annotations(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item in objects:
        if item.kind not in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
            continue
        annotations = (item.obj.get("metadata") or {}).get("annotations") or {}
        if "werf.io/weight" not in annotations and not any(a.startswith("werf.io/deploy-dependency-")
                                                           for a in annotations):
            out.append(item.finding(LINTER, "webhook-configuration-annotations",
                                    "needs werf.io/weight or a werf.io/deploy-dependency-* annotation"))
    return out


def mounted_points(objects: list[Rendered], module_dir: pathlib.Path | None = None, **_) -> list[Finding]:
    """mount-points, reverse direction: every declared dir is mounted by some workload."""
    if module_dir is None:
        return []
    mounted = {m.get("mountPath", "").rstrip("/") for _, spec in workloads(objects) for c in containers(spec)
               for m in c.get("volumeMounts") or []}
    return [Finding(LINTER, "mount-points", f"{d} is declared in a mount-points.yaml but mounted by no workload")
            for d in sorted(declared_mount_points(module_dir) - mounted)]


def ingress_rules(objects: list[Rendered], **_) -> list[Finding]:
    """An Ingress with a configuration-snippet sets HSTS (helm_lib_module_ingress_configuration_snippet)."""
    out = []
    for item in objects:
        if item.kind != "Ingress":
            continue
        annotations = (item.obj.get("metadata") or {}).get("annotations") or {}
        snippet = annotations.get("nginx.ingress.kubernetes.io/configuration-snippet")
        if snippet is not None and "Strict-Transport-Security" not in snippet:
            out.append(item.finding(LINTER, "ingress-rules", "the configuration-snippet must add the "
                                    "Strict-Transport-Security header (helm_lib_module_ingress_configuration_snippet)"))
    return out


def ingress_hook(objects: list[Rendered], module_dir: pathlib.Path | None = None, **_) -> list[Finding]:
    """hooks linter: a module serving an Ingress or HTTPRoute ships a copy_custom_certificate hook."""
    if module_dir is None:
        return []
    routes = [i for i in objects if i.kind in ("Ingress", "HTTPRoute")]
    has_hook = any(p.stem == "copy_custom_certificate" for p in walk(module_dir, "hooks"))
    if routes and not has_hook:
        return [routes[0].finding("hooks", "ingress", "a module with an Ingress or HTTPRoute needs a "
                                  "copy_custom_certificate hook")]
    return []


def _template_sources(module_dir: pathlib.Path):
    for path in walk(module_dir, "templates"):
        yield rel(module_dir, path), path.read_text(errors="replace")


def cluster_domain(module_dir: pathlib.Path) -> list[Finding]:
    message = "hard-coded cluster.local: use .Values.global.clusterConfiguration.clusterDomain"
    return [Finding(LINTER, "cluster-domain", message, path=p)
            for p, content in _template_sources(module_dir) if "cluster.local" in content]


def enabled_modules(module_dir: pathlib.Path) -> list[Finding]:
    pattern = re.compile(r"\.Values\.global\.enabledModules\s*\|\s*has")
    return [Finding(LINTER, "enabled-modules", "prefer .Capabilities.APIVersions.Has to enabledModules | has",
                    path=p, level=WARNING) for p, content in _template_sources(module_dir) if pattern.search(content)]


def crd_enabled_modules(module_dir: pathlib.Path) -> list[Finding]:
    """Deckhouse >= 1.65 installs CRDs with their modules: no `has "<x>-crd"` checks."""
    pattern = re.compile(r'has\s+"[a-z0-9-]+-crd"')
    return [Finding(LINTER, "crd-enabled-modules", 'drop the has "<module>-crd" check: CRDs come with the module',
                    path=p) for p, content in _template_sources(module_dir) if pattern.search(content)]


def registry(module_dir: pathlib.Path, values_key: str = "cloudProviderDvp") -> list[Finding]:
    path = module_dir / "templates" / "registry-secret.yaml"
    if not path.exists():
        return []
    content = path.read_text()
    if ".Values.global.modulesImages.registry.dockercfg" in content and \
            f".Values.{values_key}.registry.dockercfg" not in content:
        return [Finding(LINTER, "registry", f"also use .Values.{values_key}.registry.dockercfg",
                        path="templates/registry-secret.yaml")]
    return []


def monitoring(module_dir: pathlib.Path) -> list[Finding]:
    """prometheus-rules and grafana-dashboards: shipped folders are wired through templates/monitoring.yaml."""
    monitoring_yaml = module_dir / "templates" / "monitoring.yaml"
    content = monitoring_yaml.read_text() if monitoring_yaml.exists() else ""
    out = []
    for folder, helper, rule in (("monitoring/prometheus-rules", "helm_lib_prometheus_rules", "prometheus-rules"),
                                 ("monitoring/grafana-dashboards", "helm_lib_grafana_dashboard_definitions",
                                  "grafana-dashboards")):
        if (module_dir / folder).is_dir() and helper not in content:
            out.append(Finding(LINTER, rule, f"templates/monitoring.yaml must use {helper}", path=folder))
    return out


OBJECT_RULES = (vpa, pdb, kube_rbac_proxy, service_port, webhook_annotations, ingress_rules, ingress_hook)
# Meaningful only for a rendering with every component on (a switched-off component mounts nothing)
COMPLETE_RENDER_RULES = (mounted_points,)
FILE_RULES = (cluster_domain, enabled_modules, crd_enabled_modules, registry, monitoring)

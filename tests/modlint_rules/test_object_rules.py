# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Every rendered-object rule of modlint: the good objects pass; breaking one thing gives exactly one finding."""

from __future__ import annotations

import pytest
from modlint import Rendered, lint
from modlint_rules.sample import DIGEST, MODULE, NS, REGISTRY, container, find, good_objects, pod

DEP = f"Deployment {NS}/controller"
SRC = "templates/controller/deployment.yaml"
CTR = f"{DEP}; container controller; {SRC}"
RBAC = "templates/controller/rbac-for-us.yaml"


def lines(module_dir, objects) -> list[str]:
    return [f.line() for f in lint(module_dir, objects, registry=REGISTRY, files=False)]


def test_good_objects_have_no_findings(module_dir):
    assert lines(module_dir, good_objects()) == []


def _set(path: str, value):
    """A mutation setting the dotted `path` of the Deployment's pod spec (`c.` = first container)."""
    def mutate(objs):
        node = pod(objs)
        parts = path.split(".")
        if parts[0] == "c":
            node, parts = node["containers"][0], parts[1:]
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = value
    return mutate


def _drop(kind: str, name: str = ""):
    def mutate(objs):
        objs.remove(next(i for i in objs if i.kind == kind and (not name or i.name == name)))
    return mutate


def _add(source: str, obj: dict):
    def mutate(objs):
        objs.append(Rendered(obj, source))
    return mutate


def _edit(kind: str, fn, name: str = ""):
    def mutate(objs):
        fn(find(objs, kind, name))
    return mutate


def _labels(extra=None):
    return {"module": MODULE, "heritage": "deckhouse", **(extra or {})}


def _sa(name: str, ns: str = NS, source: str = RBAC) -> tuple:
    return source, {"apiVersion": "v1", "kind": "ServiceAccount",
                    "metadata": {"name": name, "namespace": ns, "labels": _labels()}}


CASES = [
    # container linter
    ("object-recommended-labels", _edit("Service", lambda o: o["metadata"]["labels"].pop("heritage")),
     [f"error [object-recommended-labels] Service {NS}/controller; templates/controller/service.yaml: "
      "label 'heritage' is missing"]),
    ("object-namespace-labels", _add("templates/monitoring.yaml", {
        "apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
        "metadata": {"name": "rules", "namespace": NS, "labels": _labels()}}),
     [f"error [object-namespace-labels] Namespace {NS}; templates/namespace.yaml: a namespace with PrometheusRules "
      'needs prometheus.deckhouse.io/rules-watcher-enabled: "true"']),
    ("object-api-version", _edit("PodDisruptionBudget", lambda o: o.update(apiVersion="policy/v1beta1")),
     [f"error [object-api-version] PodDisruptionBudget {NS}/controller; {SRC}: apiVersion policy/v1beta1 is "
      "deprecated: use policy/v1"]),
    ("object-priority-class missing", _set("priorityClassName", None),
     [f"error [object-priority-class] {DEP}; {SRC}: priorityClassName None is not one of the allowed classes"]),
    ("object-priority-class unknown", _set("priorityClassName", "high"),
     [f"error [object-priority-class] {DEP}; {SRC}: priorityClassName 'high' is not one of the allowed classes"]),
    ("dns-policy", _set("hostNetwork", True),
     [f"error [dns-policy] {DEP}; {SRC}: hostNetwork needs dnsPolicy: ClusterFirstWithHostNet",
      f"error [host-network-ports] {CTR}: host port 8080 is outside 4200-4299"]),
    ("controller-security-context missing", _set("securityContext", None),
     [f"error [controller-security-context] {DEP}; {SRC}: pod securityContext is missing",
      f"error [seccomp-profile] {CTR}: seccompProfile.type is None: set RuntimeDefault"]),
    ("controller-security-context partial", _set("securityContext.runAsGroup", None),
     [f"error [controller-security-context] {DEP}; {SRC}: pod securityContext misses runAsGroup"]),
    ("controller-security-context ids", _set("securityContext.runAsUser", 1000),
     [f"error [controller-security-context] {DEP}; {SRC}: non-root pod runs as 1000:64535, "
      "not 65534:65534 or 64535:64535"]),
    ("controller-security-context root", _set("securityContext.runAsNonRoot", False),
     [f"error [controller-security-context] {DEP}; {SRC}: root pod runs as 64535:64535, not 0:0"]),
    ("object-revision-history-limit", _edit("Deployment", lambda o: o["spec"].update(revisionHistoryLimit=10)),
     [f"error [object-revision-history-limit] {DEP}; {SRC}: revisionHistoryLimit is 10, must be set to 2 or less"]),
    ("object-revision-history-limit unset", _edit("Deployment", lambda o: o["spec"].pop("revisionHistoryLimit")),
     [f"error [object-revision-history-limit] {DEP}; {SRC}: revisionHistoryLimit is None, must be set to 2 or less"]),
    ("name-duplicates", _set("initContainers", [container()]),
     [f"error [name-duplicates] {CTR}: duplicate container name"]),
    ("env-variables-duplicates", _set("c.env", [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]),
     [f"error [env-variables-duplicates] {CTR}: duplicate env A"]),
    ("security-context", _set("c.securityContext", None),
     [f"error [no-new-privileges] {CTR}: allowPrivilegeEscalation must be false",
      f"error [read-only-root-filesystem] {CTR}: readOnlyRootFilesystem must be true",
      f"error [security-context] {CTR}: container securityContext is missing"]),
    ("read-only-root-filesystem", _set("c.securityContext.readOnlyRootFilesystem", False),
     [f"error [read-only-root-filesystem] {CTR}: readOnlyRootFilesystem must be true"]),
    ("no-new-privileges", _set("c.securityContext.allowPrivilegeEscalation", True),
     [f"error [no-new-privileges] {CTR}: allowPrivilegeEscalation must be false"]),
    ("seccomp-profile unconfined", _set("c.securityContext.seccompProfile", {"type": "Unconfined"}),
     [f"error [seccomp-profile] {CTR}: seccompProfile.type is 'Unconfined': set RuntimeDefault"]),
    ("host-network-ports", _set("c.ports", [{"name": "http", "containerPort": 8080, "hostPort": 8080}]),
     [f"error [host-network-ports] {CTR}: host port 8080 is outside 4200-4299"]),
    ("ports", _set("c.ports", [{"name": "http", "containerPort": 443}]),
     [f"error [ports] {CTR}: containerPort 443 must be above 1024"]),
    ("image-digest registry", _set("c.image", f"docker.io/library/python@{DIGEST}"),
     [f"error [image-digest] {CTR}: image 'docker.io/library/python@{DIGEST}' is not "
      f"<{REGISTRY}>@sha256:<digest> (helm_lib_module_image)"]),
    ("image-digest tag", _set("c.image", f"{REGISTRY}:v1"),
     [f"error [image-digest] {CTR}: image '{REGISTRY}:v1' is not <{REGISTRY}>@sha256:<digest> "
      "(helm_lib_module_image)"]),
    ("image-pull-policy", _set("c.imagePullPolicy", "Always"),
     [f"error [image-pull-policy] {CTR}: imagePullPolicy Always must be unset or IfNotPresent"]),
    ("resources missing", _set("c.resources.requests", {"cpu": "10m"}),
     [f"error [resources] {CTR}: resources.requests.ephemeral-storage must be set above 0"]),
    ("resources zero", _set("c.resources.requests.ephemeral-storage", "0"),
     [f"error [resources] {CTR}: resources.requests.ephemeral-storage must be set above 0"]),
    ("liveness-probe", _set("c.livenessProbe", None),
     [f"error [liveness-probe] {CTR}: livenessProbe is missing"]),
    ("readiness-probe two handlers", _set("c.readinessProbe", {"exec": {"command": ["true"]},
                                                               "tcpSocket": {"port": 8080}}),
     [f"error [readiness-probe] {CTR}: readinessProbe needs exactly one handler"]),
    ("mount-points undeclared", _set("c.volumeMounts", [{"name": "tmp", "mountPath": "/tmp"},
                                                        {"name": "d", "mountPath": "/var/data"}]),
     [f"error [mount-points] {CTR}: /var/data is not declared in any images/*/mount-points.yaml"]),
    ("mount-points unused", _set("c.volumeMounts", [{"name": "p", "mountPath": "/proc/x"}]),
     ["error [mount-points] -: /tmp is declared in a mount-points.yaml but mounted by no workload"]),
    ("sys-cgroup-mount", _set("c.volumeMounts", [{"name": "tmp", "mountPath": "/tmp"},
                                                 {"name": "sys", "mountPath": "/sys"}]),
     [f"error [sys-cgroup-mount] {CTR}: mounting /sys needs /sys/fs/cgroup too"]),
    # templates linter
    ("vpa missing", _drop("VerticalPodAutoscaler"),
     [f"error [vpa] {DEP}; {SRC}: no VerticalPodAutoscaler targets this controller"]),
    ("vpa Auto", _edit("VerticalPodAutoscaler", lambda o: o["spec"]["updatePolicy"].update(updateMode="Auto")),
     [f"error [vpa] {DEP}; {SRC}: VPA controller: updateMode Auto is not one of Off, Initial, Recreate, "
      "InPlaceOrRecreate"]),
    ("vpa min above max", _edit("VerticalPodAutoscaler", lambda o: o["spec"]["resourcePolicy"][
        "containerPolicies"][0]["minAllowed"].update(memory="1Gi")),
     [f"error [vpa] {CTR}: VPA controller: minAllowed memory must be below maxAllowed"]),
    ("vpa policy for a missing container", _edit("VerticalPodAutoscaler", lambda o: o["spec"]["resourcePolicy"][
        "containerPolicies"][0].update(containerName="other")),
     [f"error [vpa] {CTR}: VPA controller has no containerPolicy",
      f"error [vpa] {DEP}; container other; {SRC}: VPA controller has a policy for a missing container"]),
    ("pdb missing", _drop("PodDisruptionBudget"),
     [f"error [pdb] {DEP}; {SRC}: no PodDisruptionBudget selects this controller's pods"]),
    ("pdb selects other pods", _edit("PodDisruptionBudget", lambda o: o["spec"]["selector"].update(
        matchLabels={"app": "other"})),
     [f"error [pdb] {DEP}; {SRC}: no PodDisruptionBudget selects this controller's pods"]),
    ("pdb helm hook", _edit("PodDisruptionBudget", lambda o: o["metadata"].update(
        annotations={"helm.sh/hook": "post-install"})),
     [f"error [pdb] {DEP}; {SRC}: PDB controller must not carry Helm hook annotations"]),
    ("kube-rbac-proxy", _drop("ConfigMap", "kube-rbac-proxy-ca.crt"),
     [f"error [kube-rbac-proxy] Namespace {NS}: ConfigMap kube-rbac-proxy-ca.crt is missing "
      "(helm_lib_kube_rbac_proxy_ca_certificate)"]),
    ("service-port", _edit("Service", lambda o: o["spec"]["ports"][0].update(targetPort=8080)),
     [f"error [service-port] Service {NS}/controller; templates/controller/service.yaml: port http: targetPort must "
      "be a named port"]),
    ("webhook-configuration-annotations", _edit("ValidatingWebhookConfiguration",
                                                lambda o: o["metadata"].pop("annotations")),
     [f"error [webhook-configuration-annotations] ValidatingWebhookConfiguration d8-{MODULE}; "
      "templates/webhook/webhook.yaml: needs werf.io/weight or a werf.io/deploy-dependency-* annotation"]),
    ("ingress-rules and hooks ingress", _add("templates/web/ingress.yaml", {
        "apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
        "metadata": {"name": "web", "namespace": NS, "labels": _labels(), "annotations": {
            "nginx.ingress.kubernetes.io/configuration-snippet": "proxy_set_header X-A b;"}}, "spec": {}}),
     [f"error [ingress] Ingress {NS}/web; templates/web/ingress.yaml: a module with an Ingress or HTTPRoute needs "
      "a copy_custom_certificate hook",
      f"error [ingress-rules] Ingress {NS}/web; templates/web/ingress.yaml: the configuration-snippet must add the "
      "Strict-Transport-Security header (helm_lib_module_ingress_configuration_snippet)"]),
    # rbac linter
    ("wildcards", _edit("ClusterRole", lambda o: o["rules"][0].update(verbs=["*"]), f"d8:{MODULE}:controller"),
     [f"error [wildcards] ClusterRole d8:{MODULE}:controller; {RBAC}: rules[0].verbs holds '*': list them"]),
    ("placement SA name", _add(*_sa("manager")),
     [f"error [placement] ServiceAccount {NS}/manager; {RBAC}: the name must be controller (or "
      f"{MODULE}-controller in a Deckhouse namespace)"]),
    ("placement SA file", _add(*_sa("controller", source="templates/controller/deployment.yaml")),
     [f"error [placement] ServiceAccount {NS}/controller; {SRC}: ServiceAccounts belong in "
      "templates/rbac-for-us.yaml or templates/<component>/rbac-for-us.yaml"]),
    ("placement root SA", _add(*_sa("controller", source="templates/rbac-for-us.yaml")),
     [f"error [placement] ServiceAccount {NS}/controller; templates/rbac-for-us.yaml: the name must be {MODULE}"]),
    ("placement ClusterRole name", _edit("ClusterRole", lambda o: o["metadata"].update(name="controller"),
                                         f"d8:{MODULE}:controller"),
     [f"error [placement] ClusterRole controller; {RBAC}: the name must start with d8:{MODULE}:controller"]),
    ("placement Role namespace", _edit("Role", lambda o: o["metadata"].update(namespace="kube-system")),
     [f"error [placement] Role kube-system/controller; {RBAC}: controller* must live in {NS}"]),
    ("placement other kind in RBAC file", _add(RBAC, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "x", "namespace": NS, "labels": _labels()}}),
     [f"error [placement] ConfigMap {NS}/x; {RBAC}: kind ConfigMap does not belong in an RBAC file"]),
    ("binding-subject", _edit("ClusterRoleBinding", lambda o: o["subjects"][0].update(name="ghost")),
     [f"error [binding-subject] ClusterRoleBinding d8:{MODULE}:controller; {RBAC}: subject ServiceAccount "
      f"{NS}/ghost is not shipped by the module"]),
    ("user-authz annotation", _edit("ClusterRole", lambda o: o["metadata"].pop("annotations"),
                                    f"d8:user-authz:{MODULE}:cluster-admin"),
     [f"error [user-authz] ClusterRole d8:user-authz:{MODULE}:cluster-admin; templates/user-authz-cluster-roles.yaml: "
      "annotation user-authz.deckhouse.io/access-level is missing"]),
    ("user-authz name", _edit("ClusterRole", lambda o: o["metadata"].update(name="d8:user-authz:x:admin"),
                              f"d8:user-authz:{MODULE}:cluster-admin"),
     ["error [user-authz] ClusterRole d8:user-authz:x:admin; templates/user-authz-cluster-roles.yaml: "
      f"the name must be d8:user-authz:{MODULE}:cluster-admin"]),
]


@pytest.mark.parametrize(("case", "mutate", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_rule_reports_the_broken_object(module_dir, case, mutate, expected):
    objects = good_objects()
    mutate(objects)
    assert lines(module_dir, objects) == expected


def test_ingress_with_hsts_and_certificate_hook_passes(module_dir):
    (module_dir / "hooks" / "copy_custom_certificate.py").write_text("")
    objects = good_objects()
    objects.append(Rendered({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {
        "name": "web", "namespace": NS, "labels": _labels(), "annotations": {
            "nginx.ingress.kubernetes.io/configuration-snippet": "add_header Strict-Transport-Security max-age=1;"}},
        "spec": {}}, "templates/web/ingress.yaml"))
    assert lines(module_dir, objects) == []


def test_container_rules_cover_init_containers_and_daemonsets(module_dir):
    objects = good_objects()
    ds = find(objects, "Deployment")
    ds["kind"] = "DaemonSet"
    ds["spec"].pop("revisionHistoryLimit")
    ds["spec"]["template"]["spec"]["initContainers"] = [{**container("init"), "securityContext": {}}]
    find(objects, "VerticalPodAutoscaler")["spec"]["targetRef"]["kind"] = "DaemonSet"
    assert lines(module_dir, objects) == [
        f"error [no-new-privileges] DaemonSet {NS}/controller; container init; {SRC}: "
        "allowPrivilegeEscalation must be false",
        f"error [read-only-root-filesystem] DaemonSet {NS}/controller; container init; {SRC}: "
        "readOnlyRootFilesystem must be true",
        f"error [security-context] DaemonSet {NS}/controller; container init; {SRC}: "
        "container securityContext is missing",
    ]  # no PDB needed for a DaemonSet, no probes for init containers


def test_several_allowed_registries(module_dir):
    objects = good_objects()
    pod(objects)["containers"][0]["image"] = f"registry.example.com/own/{MODULE}@{DIGEST}"
    found = lint(module_dir, objects, registry=(REGISTRY, f"registry.example.com/own/{MODULE}"), files=False)
    assert found == []

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""DMT `rbac` linter rules: no wildcards, placement and naming by template file, binding subjects, user-authz."""

from __future__ import annotations

from .findings import Finding, Rendered

LINTER = "rbac"
USER_AUTHZ = "templates/user-authz-cluster-roles.yaml"
ROOT_FOR_US = "templates/rbac-for-us.yaml"
ROOT_TO_US = "templates/rbac-to-us.yaml"
RBAC_KINDS = ("ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding")
SYSTEM_NAMESPACES = ("default", "kube-system")
DECKHOUSE_NAMESPACES = ("d8-system", "d8-monitoring")
# ServiceAccounts of other modules a binding may name (they scrape or manage us)
FOREIGN_SUBJECTS = {("d8-monitoring", "prometheus"), ("d8-system", "deckhouse")}


def wildcards(objects: list[Rendered], **_) -> list[Finding]:
    out = []
    for item in objects:
        if item.kind not in ("Role", "ClusterRole"):
            continue
        for i, rule in enumerate(item.obj.get("rules") or []):
            for field in ("apiGroups", "resources", "verbs"):
                if "*" in (rule.get(field) or []):
                    out.append(item.finding(LINTER, "wildcards", f"rules[{i}].{field} holds '*': list them"))
    return out


def _nested(source: str, file: str) -> list[str]:
    """templates/a/b/<file> -> ["a", "b"]."""
    return source.removeprefix("templates/").removesuffix("/" + file).split("/")


def _service_account(item: Rendered, module: str, namespace: str) -> str | None:
    src, name, ns = item.source, item.name, item.namespace
    if src == ROOT_FOR_US:
        if ns in SYSTEM_NAMESPACES:
            return None if name == f"d8-{module}" else f"in {ns} the name must be d8-{module}"
        if name != module:
            return f"the name must be {module}"
        return None if ns in (namespace, *DECKHOUSE_NAMESPACES) else f"must live in {namespace}"
    if src.endswith("/rbac-for-us.yaml"):
        local = "-".join(_nested(src, "rbac-for-us.yaml"))
        wide = f"{module}-{local}"
        if ns in SYSTEM_NAMESPACES:
            return None if name == f"d8-{wide}" else f"in {ns} the name must be d8-{wide}"
        if name == local:
            return None if ns == namespace else f"{local} must live in {namespace}"
        if name == wide:
            return None if ns in DECKHOUSE_NAMESPACES else f"{wide} must live in d8-system or d8-monitoring"
        return f"the name must be {local} (or {wide} in a Deckhouse namespace)"
    return f"ServiceAccounts belong in {ROOT_FOR_US} or templates/<component>/rbac-for-us.yaml"


def _cluster_role(item: Rendered, module: str) -> str | None:
    prefix = f"d8:{module}"
    if item.source == ROOT_FOR_US or item.source.endswith("/rbac-for-us.yaml"):
        if item.source != ROOT_FOR_US:
            prefix += ":" + ":".join(_nested(item.source, "rbac-for-us.yaml"))
        ok = item.name == prefix or item.name.startswith(prefix + ":")
        return None if ok else f"the name must start with {prefix}"
    return f"{item.kind} belongs in {USER_AUTHZ}, {ROOT_FOR_US} or templates/<component>/rbac-for-us.yaml"


def _role(item: Rendered, module: str, namespace: str) -> str | None:
    src, name, ns = item.source, item.name, item.namespace
    if src == ROOT_FOR_US:
        if name.startswith(f"d8:{module}"):
            return None if ns in SYSTEM_NAMESPACES else "d8:<module> roles live in default or kube-system"
        return None if ns in (namespace, *DECKHOUSE_NAMESPACES) else f"must live in {namespace}"
    if src == ROOT_TO_US:
        return None if name.startswith(f"access-to-{module}") else f"the name must start with access-to-{module}"
    if src.endswith("/rbac-for-us.yaml"):
        parts = _nested(src, "rbac-for-us.yaml")
        local, wide = ":".join(parts), f"{module}:{':'.join(parts)}"
        if name.startswith(local):
            return None if ns == namespace else f"{local}* must live in {namespace}"
        if name.startswith(wide):
            return None if ns in DECKHOUSE_NAMESPACES else f"{wide}* must live in d8-system or d8-monitoring"
        if name.startswith(f"d8:{wide}"):
            return None if ns in SYSTEM_NAMESPACES else f"d8:{wide}* must live in default or kube-system"
        return f"the name must start with {local} or {wide}"
    if src.endswith("/rbac-to-us.yaml"):
        local = "-".join(_nested(src, "rbac-to-us.yaml"))
        ok = name.startswith(f"access-to-{local}-") or name.startswith(f"access-to-{module}-{local}-")
        return None if ok else f"the name must start with access-to-{local}-"
    return f"{item.kind} belongs in a rbac-for-us.yaml or rbac-to-us.yaml"


def placement(objects: list[Rendered], module: str = "", namespace: str = "", **_) -> list[Finding]:
    out = []
    for item in objects:
        if not item.source or item.source == USER_AUTHZ or item.source.startswith("templates/rbac/"):
            continue
        if item.kind == "ServiceAccount":
            problem = _service_account(item, module, namespace)
        elif item.kind in ("ClusterRole", "ClusterRoleBinding"):
            problem = _cluster_role(item, module)
        elif item.kind in ("Role", "RoleBinding"):
            problem = _role(item, module, namespace)
        elif item.source.endswith(("rbac-for-us.yaml", "rbac-to-us.yaml")):
            problem = f"kind {item.kind} does not belong in an RBAC file"
        else:
            continue
        if problem:
            out.append(item.finding(LINTER, "placement", problem))
    return out


def binding_subject(objects: list[Rendered], **_) -> list[Finding]:
    shipped = {(i.namespace, i.name) for i in objects if i.kind == "ServiceAccount"}
    out = []
    for item in objects:
        if item.kind not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        for subject in item.obj.get("subjects") or []:
            if subject.get("kind") != "ServiceAccount":
                continue
            key = (subject.get("namespace", item.namespace), subject.get("name"))
            if key not in shipped and key not in FOREIGN_SUBJECTS:
                out.append(item.finding(LINTER, "binding-subject",
                                        f"subject ServiceAccount {key[0]}/{key[1]} is not shipped by the module"))
    return out


def user_authz(objects: list[Rendered], module: str = "", **_) -> list[Finding]:
    out = []
    for item in objects:
        if item.source != USER_AUTHZ:
            continue
        if item.kind != "ClusterRole":
            out.append(item.finding(LINTER, "user-authz", f"{USER_AUTHZ} holds only ClusterRoles"))
            continue
        level = ((item.obj.get("metadata") or {}).get("annotations") or {}).get("user-authz.deckhouse.io/access-level")
        if not level:
            out.append(item.finding(LINTER, "user-authz", "annotation user-authz.deckhouse.io/access-level is missing"))
        elif item.name != f"d8:user-authz:{module}:{_kebab(level)}":
            out.append(item.finding(LINTER, "user-authz", f"the name must be d8:user-authz:{module}:{_kebab(level)}"))
    return out


def _kebab(level: str) -> str:
    return "".join("-" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(level))


RULES = (wildcards, placement, binding_subject, user_authz)

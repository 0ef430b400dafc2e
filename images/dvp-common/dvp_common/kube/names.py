# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""Kubernetes object name rules (apimachinery's validation): checked before a name goes into a URL path, so a
name that cannot be a Kubernetes name ("../../victim/...", "a?b", "a#b") never reaches the API server."""

from __future__ import annotations

import re

from .errors import KubeError

SUBDOMAIN = "DNS-1123 subdomain"  # most kinds (ConfigMap, Secret, PVC, custom resources, ...)
LABEL = "DNS-1123 label"  # Namespace
LABEL_1035 = "DNS-1035 label"  # Service
PATH_SEGMENT = "path segment name"  # RBAC kinds (system:controller:...): anything but "/", "%", "." and ".."
BY_RESOURCE = {("", "namespaces"): LABEL, ("", "services"): LABEL_1035}
BY_GROUP = {"rbac.authorization.k8s.io": PATH_SEGMENT}
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_PATTERNS = {
    SUBDOMAIN: (re.compile(rf"{_LABEL}(\.{_LABEL})*"), 253),
    LABEL: (re.compile(_LABEL), 63),
    LABEL_1035: (re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?"), 63),
    PATH_SEGMENT: (re.compile(r"(?!\.\.?\Z)[^/%\x00-\x1f\x7f]+"), 253),
}


def rule_for(group: str, plural: str) -> str:
    """The name rule apimachinery applies to a resource."""
    return BY_RESOURCE.get((group, plural)) or BY_GROUP.get(group) or SUBDOMAIN


class InvalidName(KubeError, ValueError):
    """A name or namespace that cannot be a Kubernetes name; the message shows it escaped and shortened."""


def problem(name: object, rule: str = SUBDOMAIN) -> str | None:
    """Why `name` breaks `rule`, or None."""
    pattern, limit = _PATTERNS[rule]
    if not isinstance(name, str) or not name:
        return "must be a non-empty string"
    if len(name) > limit:
        return f"must be at most {limit} characters ({rule})"
    if not pattern.fullmatch(name):
        if rule == PATH_SEGMENT:
            return "must be a path segment name: not '.' or '..', no '/', '%' or control characters"
        return f"must be a {rule}: lower-case letters, digits and '-'" + (", '.'" if rule == SUBDOMAIN else "")
    return None


def check(name: object, rule: str = SUBDOMAIN, what: str = "name") -> str:
    found = problem(name, rule)
    if found:
        raise InvalidName(f"{what} {shown(name)} {found}")
    return name  # type: ignore[return-value]


def shown(name: object) -> str:
    """A name fit for a one-line message: repr, at most 80 characters."""
    text = repr(name)
    return text if len(text) <= 80 else text[:77] + "..."

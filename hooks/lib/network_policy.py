# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The cluster's NetworkPolicy in its DVP project (networkPolicy Isolated), as the OpenTofu layout makes it
(candi/terraform-modules/network-policy), and the add-only merge that keeps it whole between converges (pure).

Add-only: a rule the settings call for and the policy lacks is appended; nothing is ever removed or changed,
since a rule someone added in the project may be what keeps a bastion or a monitoring system working, and the
next converge puts the layout's policy back anyway. Rules are compared in a canonical form: the API server's
defaults filled in (a port's protocol is TCP), peers and ports in a fixed order."""

import json

from lib import values as v
from lib.errors import InvalidInput

POLICY_SUFFIX = "-isolated"  # the layout's name: <cloud.prefix>-isolated
ISOLATED = "Isolated"
DEFAULT_INGRESS_PORTS = (22,)
PLATFORM_NAMESPACES = ("d8-ingress-nginx", "d8-metallb")
ANYWHERE = {"ipBlock": {"cidr": "0.0.0.0/0"}}


def _namespace(name: str) -> dict:
    return {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": name}}}


def desired(namespace: str, ingress_ports) -> dict:
    """{ingress: [...], egress: [...]} as the layout renders them for this project and these ports."""
    neighbours = [_namespace(namespace), *(_namespace(ns) for ns in PLATFORM_NAMESPACES)]
    ingress = [{"from": neighbours}]
    if ingress_ports:
        ingress.append({"from": [ANYWHERE], "ports": [{"protocol": "TCP", "port": p} for p in ingress_ports]})
    egress = [
        {"to": neighbours},
        {"to": [ANYWHERE]},
        {"to": [_namespace("kube-system")],
         "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]},
    ]
    return {"ingress": ingress, "egress": egress}


def _key(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def canonical(rule) -> str:
    """One rule's identity: peers and ports as sets, TCP where the protocol is left out."""
    if not isinstance(rule, dict):
        return _key(rule)
    out = {}
    for field, items in rule.items():
        if field == "ports" and isinstance(items, list):
            items = [{"protocol": "TCP", **p} if isinstance(p, dict) else p for p in items]
        out[field] = sorted(_key(i) for i in items) if isinstance(items, list) else _key(items)
    return _key({k: val for k, val in out.items() if val != []})


def merged(spec: dict, wanted: dict) -> dict | None:
    """The spec fields to write (whole lists: a merge patch replaces lists) so that `spec` holds every wanted
    rule and policy type, or None when it already does."""
    patch = {}
    for field in ("ingress", "egress"):
        current = spec.get(field) or []
        have = {canonical(r) for r in current}
        missing = [r for r in wanted[field] if canonical(r) not in have]
        if missing:
            patch[field] = [*current, *missing]
    types = spec.get("policyTypes") or []
    if not {"Ingress", "Egress"} <= set(types):
        patch["policyTypes"] = [*types, *(t for t in ("Ingress", "Egress") if t not in types)]
    return patch or None


def _text(values: dict, path: str) -> str:
    found = v.get(values, path) or ""
    if not isinstance(found, str):
        raise InvalidInput("values", path, "must be a string")
    return found


class Target:
    """What the hook needs from the values; `skip` says why there is nothing to do (None: there is)."""

    def __init__(self, values: dict):
        p = v.module("provider.parameters")
        self.mode = _text(values, p + ".networkPolicy") or ISOLATED
        self.namespace = _text(values, p + ".namespace")
        ports = v.get(values, v.module("nodes.parameters.ingressPorts"))
        if ports is not None and not (isinstance(ports, list) and all(
                isinstance(x, int) and not isinstance(x, bool) and 0 < x < 65536 for x in ports)):
            raise InvalidInput("values", v.module("nodes.parameters.ingressPorts"), "must be a list of port numbers")
        self.ingress_ports = list(DEFAULT_INGRESS_PORTS) if ports is None else list(ports)
        self.cluster_uuid = _text(values, "global.discovery.clusterUUID")
        prefix = _text(values, "global.clusterConfiguration.cloud.prefix")
        self.name = prefix + POLICY_SUFFIX if prefix else ""
        secrets = v.get(values, v.internal("credentialSecrets")) or {}
        credentials = (secrets.get("d8-credentials") if isinstance(secrets, dict) else None) or {}
        self.kubeconfig = credentials.get("secret") if isinstance(credentials, dict) else None
        if not isinstance(self.kubeconfig, str | None):
            raise InvalidInput("values", v.internal("credentialSecrets") + ".d8-credentials.secret",
                               "must be a base64 string")
        self.skip = next((why for bad, why in (
            (self.mode != ISOLATED, f"networkPolicy is {self.mode}"),
            (not self.kubeconfig, "no DVP credentials yet"),
            (not self.namespace, "provider.parameters.namespace is not set"),
            (not self.cluster_uuid, "global.discovery.clusterUUID is not known yet"),
            (not self.name, "global.clusterConfiguration.cloud.prefix is not known"),
        ) if bad), None)

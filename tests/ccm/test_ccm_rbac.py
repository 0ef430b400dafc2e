# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The CCM runs with exactly the guest RBAC the module renders (templates/cloud-controller-manager/rbac-for-us.yaml),
on an RBAC-mode kube-apiserver: every request it needs is allowed, and none is denied."""

from __future__ import annotations

import pytest
from ccm_real import Env, eventually
from chart import matrix
from chart.render import render_values
from dvp_ccm.domain import taints as T
from dvp_common.dvp import labels as L
from dvp_common.kube import Resource
from dvp_common.kube.resources import SERVICE

CLUSTER_ROLE = Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", namespaced=False)
CLUSTER_ROLE_BINDING = Resource("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding",
                                namespaced=False)
ROLE = Resource("rbac.authorization.k8s.io", "v1", "roles", "Role")
ROLE_BINDING = Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding")


def rendered_rules() -> tuple[list, list]:
    objects = render_values(matrix.case("defaults"))
    cluster = next(o for o in objects if o["kind"] == "ClusterRole"
                   and o["metadata"]["name"] == "d8:cloud-provider-dvp:cloud-controller-manager")
    lease = next(o for o in objects if o["kind"] == "Role" and "cloud-controller-manager" in o["metadata"]["name"]
                 and any("leases" in r.get("resources", []) for r in o.get("rules", [])))
    return cluster["rules"], lease["rules"]


@pytest.fixture
def env(dvp_api, rbac_api):
    e = Env(dvp_api, rbac_api)
    yield e
    e.close()


def test_ccm_works_with_the_rendered_rbac_only(env, rbac_api):
    cluster_rules, lease_rules = rendered_rules()
    admin, ns, sa = env.guest, env.guest_ns, "cloud-controller-manager"
    token = rbac_api.service_account_token(ns, sa)
    subject = [{"kind": "ServiceAccount", "name": sa, "namespace": ns}]
    role_name = f"ccm-{env.prefix}"
    admin.create(CLUSTER_ROLE, {"metadata": {"name": role_name}, "rules": cluster_rules})
    admin.create(CLUSTER_ROLE_BINDING, {"metadata": {"name": role_name}, "subjects": subject, "roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role_name}})
    admin.create(ROLE, {"metadata": {"name": "lease"}, "rules": lease_rules}, ns)
    admin.create(ROLE_BINDING, {"metadata": {"name": "lease"}, "subjects": subject, "roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "lease"}}, ns)
    try:
        env.vm("rb0", hostname=f"{env.prefix}-rb0")
        env.vm("rb1")
        name = env.node("rb0")
        env.node("bad", provider_id="dvp://x/y")  # an Event on a Node
        m = env.manager(guest_token=token, leader_elect=True, lease_duration=3.0, renew_deadline=2.0,
                        retry_period=0.5)
        admin.create(SERVICE, {"metadata": {"name": "web"}, "spec": {
            "type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 80}]}}, ns)
        eventually(lambda: not T.has(env.get_node(name), T.UNINITIALIZED), what="node initialised")
        eventually(lambda: admin.get(SERVICE, "web", ns).get("status", {}).get("loadBalancer", {}).get("ingress"),
                   what="service ensured")
        eventually(lambda: L.LB_BACKEND in env.vm_labels("rb0"), what="the shared backend label")
        admin.delete(SERVICE, "web", ns)
        eventually(lambda: not admin.list(SERVICE, ns).items, what="service finalized")
        denied = {k: n for k, n in m.guest.metrics.errors.items() if k[2] == 403}
        assert denied == {}
    finally:
        admin.delete(CLUSTER_ROLE_BINDING, role_name, missing_ok=True)
        admin.delete(CLUSTER_ROLE, role_name, missing_ok=True)

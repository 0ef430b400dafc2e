# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The webhooks' rendered RBAC (templates/validation-webhook, templates/snapshot-webhooks) covers every lookup the
rules make, on the RBAC-mode API server with each ServiceAccount's own token, and no write."""

from __future__ import annotations

import pytest
from chart import matrix
from chart.render import render_values
from dvp_common.kube import Forbidden, Resource
from dvp_common.kube.resources import CONFIG_MAP, NAMESPACE, PERSISTENT_VOLUME_CLAIM
from dvp_webhooks.lookups import Lookups

MODULE_NS = "d8-cloud-provider-dvp"
KINDS = {
    "ServiceAccount": Resource("", "v1", "serviceaccounts", "ServiceAccount"),
    "Role": Resource("rbac.authorization.k8s.io", "v1", "roles", "Role"),
    "RoleBinding": Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding"),
    "ClusterRole": Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", namespaced=False),
    "ClusterRoleBinding": Resource("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding",
                                   namespaced=False),
}


def apply_rbac(admin, app: str) -> None:
    objects = [o for o in render_values(matrix.case("maximal"))
               if o["kind"] in KINDS and (o["metadata"].get("labels") or {}).get("app") == app]
    assert any(o["kind"] == "ServiceAccount" for o in objects), f"no ServiceAccount rendered for {app}"
    for obj in objects:
        ns = obj["metadata"].get("namespace")
        admin.delete(KINDS[obj["kind"]], obj["metadata"]["name"], ns, missing_ok=True)
        admin.create(KINDS[obj["kind"]], obj, ns)


@pytest.fixture
def admin(rbac_api):
    client = rbac_api.client()
    client.create(NAMESPACE, {"metadata": {"name": MODULE_NS}}, get_existing=True)
    return client


def test_validation_webhook_rbac(rbac_api, admin):
    apply_rbac(admin, "validation-webhook")
    sa = rbac_api.client(token=rbac_api.service_account_token(MODULE_NS, "validation-webhook"))
    lookups = Lookups(sa, MODULE_NS)
    assert lookups.migrating() is False
    assert lookups.instance_class("absent") is None
    assert lookups.node_groups() == []  # not served here: allowed by RBAC, then absent
    with pytest.raises(Forbidden):
        sa.create(CONFIG_MAP, {"metadata": {"name": "x"}}, MODULE_NS)


def test_snapshot_webhooks_rbac(rbac_api, admin):
    apply_rbac(admin, "snapshot-webhooks")
    sa = rbac_api.client(token=rbac_api.service_account_token(MODULE_NS, "snapshot-webhooks"))
    lookups = Lookups(sa, MODULE_NS)
    assert lookups.pvc("default", "absent") is None
    assert lookups.storage_class("absent") is None
    assert isinstance(lookups.snapshot_classes(), list)
    with pytest.raises(Forbidden):
        sa.create(PERSISTENT_VOLUME_CLAIM, {"metadata": {"name": "x"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}, "default")

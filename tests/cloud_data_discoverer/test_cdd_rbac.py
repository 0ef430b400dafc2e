# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""The discoverer's rendered RBAC (templates/cloud-data-discoverer/rbac-for-us.yaml) is enough for a round and no
more: applied to the RBAC-mode API server, the ServiceAccount's token runs a full round on the guest side
(node-manager's InstanceTypesCatalog included) and is refused anything else in kube-system and any other catalog."""

from __future__ import annotations

import base64
import json
import uuid

import pytest
from chart import matrix
from chart.render import render_values
from cloud_data_discoverer import guest as g
from cloud_data_discoverer.discoverer import Discoverer
from cloud_data_discoverer.guest import INSTANCE_TYPES_CATALOG, Guest
from cloud_data_discoverer.metrics import Metrics
from dvp_common.dvp import DVPConnection, Inventory
from dvp_common.kube import Forbidden, Resource
from dvp_common.kube.resources import CONFIG_MAP, NAMESPACE, SECRET

MODULE_NS = "d8-cloud-provider-dvp"
KINDS = {
    "ServiceAccount": Resource("", "v1", "serviceaccounts", "ServiceAccount"),
    "Role": Resource("rbac.authorization.k8s.io", "v1", "roles", "Role"),
    "RoleBinding": Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding"),
    "ClusterRole": Resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", namespaced=False),
    "ClusterRoleBinding": Resource("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding",
                                   namespaced=False),
}


def discoverer_rbac() -> list[dict]:
    objects = render_values(matrix.case("maximal"))
    picked = [o for o in objects if o["kind"] in KINDS
              and (o["metadata"].get("labels") or {}).get("app") == "cloud-data-discoverer"]
    assert {o["kind"] for o in picked} == set(KINDS), "the discoverer's RBAC objects are not all rendered"
    return picked


def test_rendered_rbac_suffices_and_limits(rbac_api, dvp_api):
    admin = rbac_api.client()
    admin.create(NAMESPACE, {"metadata": {"name": MODULE_NS}}, get_existing=True)
    for obj in discoverer_rbac():
        res = KINDS[obj["kind"]]
        ns = obj["metadata"].get("namespace")
        admin.delete(res, obj["metadata"]["name"], ns, missing_ok=True)  # the latest render wins
        admin.create(res, obj, ns)
    token = rbac_api.service_account_token(MODULE_NS, "cloud-data-discoverer")
    installer = {"zones": ["z"], "storageClasses": [{"name": "from-installer", "isEnabled": True}]}
    admin.delete(SECRET, "d8-provider-cluster-configuration", "kube-system", missing_ok=True)
    admin.create(SECRET, {"metadata": {"name": "d8-provider-cluster-configuration"}, "data": {
        "cloud-provider-discovery-data.json": base64.b64encode(json.dumps(installer).encode()).decode()}},
        "kube-system")
    admin.create(SECRET, {"metadata": {"name": "someone-elses"}, "stringData": {"k": "v"}}, "kube-system",
                 get_existing=True)

    sa = rbac_api.client(token=token)
    conn = DVPConnection(dvp_api.client(), dvp_api.create_namespace("cdd"), str(uuid.uuid4()))
    disc = Discoverer(Inventory(conn), Guest(sa, attempts=1), Metrics(), conn.cluster_uuid)
    admin.delete(INSTANCE_TYPES_CATALOG, "for-cluster-autoscaler", missing_ok=True)
    outcomes = []
    for _ in range(2):  # create, then update paths
        result = disc.run_once()
        assert result.write_error is None and result.dvp_error is None and result.refused is None
        outcomes.append(result.catalog_outcome)
    assert outcomes == [g.CREATED, g.UNCHANGED]
    # an update too: the stored list differs from what DVP says
    admin.patch(INSTANCE_TYPES_CATALOG, "for-cluster-autoscaler", {"instanceTypes": [
        {"name": "stale", "cpu": "1", "memory": "1Gi"}]})
    assert disc.run_once().catalog_outcome == g.UPDATED
    assert admin.get(INSTANCE_TYPES_CATALOG, "for-cluster-autoscaler")["metadata"]["labels"] == {
        "heritage": "deckhouse", "module": "cloud-provider-dvp"}
    admin.create(INSTANCE_TYPES_CATALOG, {"metadata": {"name": "someone-elses"}, "instanceTypes": []},
                 get_existing=True)
    with pytest.raises(Forbidden):
        sa.get(INSTANCE_TYPES_CATALOG, "someone-elses")
    with pytest.raises(Forbidden):
        sa.list(INSTANCE_TYPES_CATALOG)
    secret = admin.get(SECRET, "d8-cloud-provider-discovery-data", "kube-system")
    data = json.loads(base64.b64decode(secret["data"]["discovery-data.json"]))
    assert data["zones"] == ["z"] and {"name": "from-installer", "isEnabled": True} in data["storageClasses"]
    assert json.loads(admin.get(CONFIG_MAP, "d8-cloud-provider-conditions", "kube-system")["data"]["conditions"])[0][
        "name"] == "DVPAPIReachable"
    with pytest.raises(Forbidden):
        sa.get(SECRET, "someone-elses", "kube-system")
    with pytest.raises(Forbidden):
        sa.list(SECRET, "kube-system")
    with pytest.raises(Forbidden):
        sa.get(CONFIG_MAP, "d8-cloud-provider-conditions", MODULE_NS)

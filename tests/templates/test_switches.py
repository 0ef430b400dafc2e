# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What each setting switches on and off, asserted on the exact objects rendered."""

from __future__ import annotations

import base64

import pytest
from chart import matrix
from chart.render import NAMESPACE, RenderError, render_values

from testkit.harness.objects import arg_value, container, find, names, pod_spec

NS = NAMESPACE
ALL_DEPLOYMENTS = ["capdvp-controller-manager", "cloud-controller-manager", "cloud-data-discoverer", "csi-controller",
                   "snapshot-controller", "snapshot-webhooks", "validation-webhook"]
RULES = ["availability", "configuration", "discovery", "storage"]  # monitoring/prometheus-rules/<name>.tpl


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_defaults_render_every_component(rendered):
    objects = rendered("defaults")
    assert names(objects, "Deployment") == ALL_DEPLOYMENTS
    assert names(objects, "DaemonSet") == ["csi-node"]
    assert names(objects, "CSIDriver") == ["csi.dvp.deckhouse.io"]
    assert names(objects, "VolumeSnapshotClass") == ["cloud-provider-dvp"]
    assert names(objects, "StorageClass") == ["ceph-rbd", "linstor-thin-r2"]


def test_storage_off_removes_csi_storage_classes_and_snapshots(rendered):
    objects = rendered("storage-off")
    assert names(objects, "Deployment") == ["capdvp-controller-manager", "cloud-controller-manager",
                                            "cloud-data-discoverer", "validation-webhook"]
    for kind in ("DaemonSet", "CSIDriver", "StorageClass", "VolumeSnapshotClass", "MutatingWebhookConfiguration"):
        assert names(objects, kind) == [], kind
    assert "d8:cloud-provider-dvp:csi:controller" not in names(objects, "ClusterRole")
    assert names(objects, "ServiceAccount") == ["capdvp-controller-manager", "cloud-controller-manager",
                                                "cloud-data-discoverer", "validation-webhook"]


def test_nodes_off_removes_ccm_capdvp_their_secret_and_node_webhooks(rendered):
    objects = rendered("nodes-off")
    deployments = names(objects, "Deployment")
    assert "cloud-controller-manager" not in deployments
    assert "capdvp-controller-manager" not in deployments
    secrets = names(objects, "Secret")
    assert "dvp-credentials-csi" in secrets and "dvp-credentials-discoverer" in secrets
    assert "dvp-credentials-capdvp" not in secrets and "dvp-credentials-ccm" not in secrets
    assert "capdvp-webhook-tls" not in secrets
    assert "d8-cloud-provider-dvp-capdvp" not in names(objects, "ValidatingWebhookConfiguration")
    vwc = find(objects, "ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-validation")
    assert [w["name"] for w in vwc["webhooks"]] == ["credentials.cloud-provider-dvp.deckhouse.io"]
    assert "d8:cloud-provider-dvp:cloud-controller-manager" not in names(objects, "ClusterRole")


def test_ccm_off_keeps_capdvp(rendered):
    deployments = names(rendered("ccm-off"), "Deployment")
    assert "cloud-controller-manager" not in deployments
    assert "capdvp-controller-manager" in deployments


def test_ccm_controllers_follow_the_load_balancer_switch(rendered):
    on = container(find(rendered("defaults"), "Deployment", "cloud-controller-manager"), "cloud-controller-manager")
    off = container(find(rendered("lb-disabled"), "Deployment", "cloud-controller-manager"),
                    "cloud-controller-manager")
    assert arg_value(on, "--controllers") == "cloud-node,cloud-node-lifecycle,service-lb-controller"
    assert arg_value(off, "--controllers") == "cloud-node,cloud-node-lifecycle"


def test_snapshots_off_removes_snapshotter_class_and_controller(rendered):
    objects = rendered("snapshots-off")
    csi = find(objects, "Deployment", "csi-controller")
    assert [c["name"] for c in pod_spec(csi)["containers"]] == [
        "csi-driver", "provisioner", "attacher", "resizer", "livenessprobe", "kube-rbac-proxy"]
    assert names(objects, "VolumeSnapshotClass") == []
    assert "snapshot-controller" not in names(objects, "Deployment")
    assert "snapshot-webhooks" not in names(objects, "Deployment")
    assert names(objects, "MutatingWebhookConfiguration") == []
    role = find(objects, "ClusterRole", "d8:cloud-provider-dvp:csi:controller")
    assert all("snapshot.storage.k8s.io" not in r["apiGroups"] for r in role["rules"])


def test_snapshots_on_add_the_snapshotter_sidecar(rendered):
    csi = find(rendered("defaults"), "Deployment", "csi-controller")
    assert [c["name"] for c in pod_spec(csi)["containers"]] == [
        "csi-driver", "provisioner", "attacher", "resizer", "snapshotter", "livenessprobe", "kube-rbac-proxy"]
    vsc = find(rendered("defaults"), "VolumeSnapshotClass", "cloud-provider-dvp")
    assert vsc["driver"] == "csi.dvp.deckhouse.io"
    assert vsc["deletionPolicy"] == "Delete"


def test_the_snapshot_controller_module_takes_over_the_controller():
    objects = render_values(matrix.build(global_overrides={
        "enabledModules": ["cloud-provider-dvp", "snapshot-controller"]}))
    assert "snapshot-controller" not in names(objects, "Deployment")
    assert "snapshot-webhooks" not in names(objects, "Deployment")
    assert names(objects, "VolumeSnapshotClass") == ["cloud-provider-dvp"]
    assert "snapshotter" in [c["name"] for c in pod_spec(find(objects, "Deployment", "csi-controller"))["containers"]]


@pytest.mark.parametrize(("case", "master", "anywhere", "affinity"), [
    ("ha-on", 3, 2, True),
    ("ha-off", 1, 1, False),
    ("defaults", 1, 1, False),  # no module or global highAvailability: the control plane (not HA) decides
])
def test_high_availability_sets_replicas_and_anti_affinity(rendered, case, master, anywhere, affinity):
    objects = rendered(case)
    for name in ("cloud-controller-manager", "capdvp-controller-manager", "csi-controller", "validation-webhook",
                 "snapshot-webhooks"):
        deployment = find(objects, "Deployment", name)
        assert deployment["spec"]["replicas"] == master, name
        assert ("affinity" in pod_spec(deployment)) is affinity, name
    assert find(objects, "Deployment", "snapshot-controller")["spec"]["replicas"] == anywhere
    assert find(objects, "Deployment", "cloud-data-discoverer")["spec"]["replicas"] == 1


def test_global_high_availability_applies_without_a_module_setting():
    objects = render_values(matrix.build(global_overrides={"highAvailability": True}))
    assert find(objects, "Deployment", "csi-controller")["spec"]["replicas"] == 3
    anti = pod_spec(find(objects, "Deployment", "csi-controller"))["affinity"]["podAntiAffinity"]
    assert anti["requiredDuringSchedulingIgnoredDuringExecution"] == [
        {"labelSelector": {"matchLabels": {"app": "csi-controller"}}, "topologyKey": "kubernetes.io/hostname"}]


def test_storage_classes_are_rendered_from_internal_values(rendered):
    objects = rendered("defaults")
    thin = find(objects, "StorageClass", "linstor-thin-r2")
    ceph = find(objects, "StorageClass", "ceph-rbd")
    assert thin == {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "linstor-thin-r2", "labels": {"heritage": "deckhouse", "module": "cloud-provider-dvp"},
                     "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "csi.dvp.deckhouse.io", "parameters": {"dvpStorageClass": "linstor-thin-r2"},
        "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete", "allowVolumeExpansion": True,
    }
    assert "annotations" not in ceph["metadata"]
    assert (ceph["volumeBindingMode"], ceph["reclaimPolicy"], ceph["allowVolumeExpansion"]) == (
        "Immediate", "Retain", False)


def test_no_storage_classes_render_none():
    objects = render_values(matrix.build(internal_overrides={"storageClasses": []}))
    assert names(objects, "StorageClass") == []
    assert names(objects, "CSIDriver") == ["csi.dvp.deckhouse.io"]


def test_csi_driver_object(rendered):
    driver = find(rendered("defaults"), "CSIDriver", "csi.dvp.deckhouse.io")
    assert driver["spec"]["attachRequired"] is True
    assert driver["spec"]["podInfoOnMount"] is False
    assert driver["spec"]["storageCapacity"] is True
    assert "nodeAllocatableUpdatePeriodSeconds" not in driver["spec"]  # the example cluster runs 1.30


@pytest.mark.parametrize(("version", "period"), [("1.33.5", None), ("1.34.0", 60), ("1.36.1", 60)])
def test_the_attach_limit_is_re_read_from_kubernetes_1_34_on(version, period):
    objects = render_values(matrix.build(global_overrides={"discovery": {"kubernetesVersion": version}}))
    spec = find(objects, "CSIDriver", "csi.dvp.deckhouse.io")["spec"]
    assert spec.get("nodeAllocatableUpdatePeriodSeconds") == period


def test_the_provisioner_publishes_capacity_and_may_own_it(rendered):
    objects = rendered("defaults")
    pod = pod_spec(find(objects, "Deployment", "csi-controller"))
    provisioner = next(c for c in pod["containers"] if c["name"] == "provisioner")
    assert {"--enable-capacity", "--capacity-ownerref-level=2", "--capacity-poll-interval=1m"} <= set(
        provisioner["args"])
    assert {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}} in provisioner["env"]
    role = find(objects, "ClusterRole", "d8:cloud-provider-dvp:csi:controller")
    assert {"apiGroups": ["storage.k8s.io"], "resources": ["csistoragecapacities"],
            "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]} in role["rules"]
    assert {"apiGroups": ["apps"], "resources": ["replicasets"], "verbs": ["get"]} in role["rules"]


COMPONENT_SECRETS = ("dvp-credentials-capdvp", "dvp-credentials-ccm", "dvp-credentials-csi",
                     "dvp-credentials-discoverer")


def test_credentials_secrets_carry_kubeconfig_namespace_and_uuid(rendered):
    values = matrix.case("defaults")
    kubeconfig_b64 = values["cloudProviderDvp"]["internal"]["credentialSecrets"]["d8-credentials"]["secret"]
    objects = rendered("defaults")
    assert sorted(n for n in names(objects, "Secret") if n.startswith("dvp-credentials")) == list(COMPONENT_SECRETS)
    for name in COMPONENT_SECRETS:
        secret = find(objects, "Secret", name, NS)
        assert secret["data"] == {
            "kubernetesConfigBase64": b64(kubeconfig_b64),
            "namespace": b64("demo-cluster"),
            "clusterUUID": b64("3b5058e1-e93b-4dfa-be32-395ef4b3da45"),
        }


def test_a_component_credentials_secret_gives_that_component_its_own_kubeconfig():
    values = matrix.case("defaults")
    creds = values["cloudProviderDvp"]["internal"]["credentialSecrets"]
    shared = creds["d8-credentials"]["secret"]
    own = base64.b64encode(b"apiVersion: v1\nkind: Config\n# the CSI ServiceAccount\n").decode()
    creds["d8-credentials-csi"] = {"authScheme": "kubeconfig", "secret": own}
    objects = render_values(values)
    data = {n: find(objects, "Secret", n, NS)["data"]["kubernetesConfigBase64"] for n in COMPONENT_SECRETS}
    assert data == {"dvp-credentials-capdvp": b64(shared), "dvp-credentials-ccm": b64(shared),
                    "dvp-credentials-csi": b64(own), "dvp-credentials-discoverer": b64(shared)}


CREDENTIAL_USERS = {"cloud-controller-manager": "dvp-credentials-ccm",
                    "capdvp-controller-manager": "dvp-credentials-capdvp",
                    "cloud-data-discoverer": "dvp-credentials-discoverer", "csi-controller": "dvp-credentials-csi"}


def test_python_components_read_the_dvp_connection_from_their_secret(rendered):
    objects = rendered("defaults")
    main = {"csi-controller": "csi-driver"}
    for deployment, secret in CREDENTIAL_USERS.items():
        c = container(find(objects, "Deployment", deployment), main.get(deployment, deployment))
        env = {e["name"]: e.get("valueFrom", {}).get("secretKeyRef") for e in c["env"]}
        assert env["DVP_KUBERNETES_CONFIG_BASE64"] == {"name": secret, "key": "kubernetesConfigBase64"}
        assert env["DVP_NAMESPACE"] == {"name": secret, "key": "namespace"}
        assert env["CLUSTER_UUID"] == {"name": secret, "key": "clusterUUID"}


def test_entry_points_and_log_level():
    objects = render_values(matrix.build({"logLevel": "Debug"}))
    commands = {
        ("cloud-controller-manager", "cloud-controller-manager"): ["python3", "-m", "dvp_ccm"],
        ("capdvp-controller-manager", "capdvp-controller-manager"): ["python3", "-m", "capdvp"],
        ("cloud-data-discoverer", "cloud-data-discoverer"): ["python3", "-m", "cloud_data_discoverer"],
        ("validation-webhook", "webhooks"): ["python3", "-m", "dvp_webhooks", "validation"],
        ("snapshot-webhooks", "webhooks"): ["python3", "-m", "dvp_webhooks", "snapshot"],
        ("csi-controller", "csi-driver"): ["python3", "-m", "dvp_csi"],
    }
    for (deployment, name), command in commands.items():
        c = container(find(objects, "Deployment", deployment), name)
        assert c["command"] == command
        assert arg_value(c, "--log-level") == "Debug"
    node = container(find(objects, "DaemonSet", "csi-node"), "csi-driver")
    assert node["command"] == ["python3", "-m", "dvp_csi"]
    assert arg_value(node, "--mode") == "node"


def test_images_come_from_the_registry_by_digest(rendered):
    objects = rendered("defaults")
    base = "registry.deckhouse.io/deckhouse/ce"
    ccm = container(find(objects, "Deployment", "cloud-controller-manager"), "cloud-controller-manager")
    assert ccm["image"] == f"{base}@sha256:{'1' * 64}"
    proxy = container(find(objects, "Deployment", "cloud-data-discoverer"), "kube-rbac-proxy")
    assert proxy["image"] == f"{base}@sha256:a{'1' * 63}"


def test_module_registry_overrides_the_global_one():
    values = matrix.build()
    values["cloudProviderDvp"]["registry"] = {"base": "mirror.example.com/modules", "dockercfg": b64("{}")}
    objects = render_values(values)
    ccm = container(find(objects, "Deployment", "cloud-controller-manager"), "cloud-controller-manager")
    assert ccm["image"] == f"mirror.example.com/modules@sha256:{'1' * 64}"
    assert find(objects, "Secret", "deckhouse-registry", NS)["data"] == {".dockerconfigjson": b64("{}")}


def test_cni_secret_passes_stored_data_through_or_defaults_to_cilium_vxlan(rendered):
    stored = find(rendered("defaults"), "Secret", "d8-cni-configuration", "kube-system")
    assert stored["data"] == {"cni": b64("cilium"), "cilium": b64('{"mode":"Direct"}')}
    default = find(render_values(matrix.build(internal_overrides={"cniSecretData": None})),
                   "Secret", "d8-cni-configuration", "kube-system")
    assert default["data"] == {"cni": b64("cilium"), "cilium": b64('{"mode":"VXLAN"}')}


def test_webhook_configurations_trust_the_ca_from_values(rendered):
    values = matrix.case("defaults")
    objects = rendered("defaults")
    for kind, name, cert in (
        ("ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-validation", "validationWebhookCert"),
        ("ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-capdvp", "capdvpControllerManagerWebhookCert"),
        ("ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-snapshot-validation", "snapshotWebhookCert"),
        ("MutatingWebhookConfiguration", "d8-cloud-provider-dvp-volume-snapshot-mutation", "snapshotWebhookCert"),
    ):
        config = find(objects, kind, name)
        assert config["metadata"]["annotations"]["werf.io/weight"] == "10"
        ca = b64(values["cloudProviderDvp"]["internal"][cert]["ca"])
        assert {w["clientConfig"]["caBundle"] for w in config["webhooks"]} == {ca}
        assert {w["failurePolicy"] for w in config["webhooks"]} == {"Fail"}
    snap = find(objects, "ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-snapshot-validation")
    assert [w["rules"][0]["resources"] for w in snap["webhooks"]] == [
        ["volumesnapshots"], ["volumesnapshotcontents"], ["volumesnapshotclasses"]]
    creds = find(objects, "ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-validation")["webhooks"][0]
    # Selected by the Secret's type on the API server side, never by a label anyone can set.
    assert "objectSelector" not in creds
    assert [c["name"] for c in creds["matchConditions"]] == ["credentials-type"]


def test_tls_secrets_hold_the_certificates(rendered):
    values = matrix.case("defaults")["cloudProviderDvp"]["internal"]
    for name, key in (("capdvp-webhook-tls", "capdvpControllerManagerWebhookCert"),
                      ("validation-webhook-tls", "validationWebhookCert"),
                      ("snapshot-webhooks-tls", "snapshotWebhookCert")):
        secret = find(rendered("defaults"), "Secret", name, NS)
        assert secret["type"] == "kubernetes.io/tls"
        assert secret["data"] == {"ca.crt": b64(values[key]["ca"]), "tls.crt": b64(values[key]["crt"]),
                                  "tls.key": b64(values[key]["key"])}


def test_prometheus_rules_follow_the_rendered_components(rendered):
    def alerts(case, rule_names=RULES):
        rules = [find(rendered(case), "PrometheusRule", f"cloud-provider-dvp-{n}", NS) for n in rule_names]
        return [r["alert"] for rule in rules for g in rule["spec"]["groups"] for r in g["rules"]]
    assert names(rendered("defaults"), "PrometheusRule") == [f"cloud-provider-dvp-{n}" for n in RULES]
    full = alerts("defaults")
    assert alerts("defaults", ["configuration"]) == [
        "D8CloudProviderDVPMigrationPending", "D8CloudProviderDVPCredentialsMissing",
        "D8CloudProviderDVPDefaultStorageClassDrifted"]
    for component in ("CloudControllerManager", "CAPDVPControllerManager", "CSIController", "SnapshotController",
                      "SnapshotWebhooks", "CloudDataDiscoverer", "ValidationWebhook"):
        assert f"D8CloudProviderDVP{component}Down" in full
        assert f"D8CloudProviderDVP{component}Absent" in full
    # without storage, monitoring/prometheus-rules/storage.tpl renders no group: no PrometheusRule of its own
    assert names(rendered("storage-off"), "PrometheusRule") == [f"cloud-provider-dvp-{n}" for n in RULES[:3]]
    storage_off = alerts("storage-off", RULES[:3])
    assert "D8CloudProviderDVPCSIControllerDown" not in storage_off
    assert "D8CloudProviderDVPCSINodeUnavailable" not in storage_off
    assert "D8CloudProviderDVPCloudControllerManagerDown" not in alerts("nodes-off")


def test_namespace_carries_the_monitoring_labels(rendered):
    ns = find(rendered("defaults"), "Namespace", NS)
    assert ns["metadata"]["labels"] == {
        "heritage": "deckhouse", "module": "cloud-provider-dvp", "extended-monitoring.deckhouse.io/enabled": "",
        "prometheus.deckhouse.io/monitor-watcher-enabled": "true",
        "prometheus.deckhouse.io/rules-watcher-enabled": "true"}
    ca = find(rendered("defaults"), "ConfigMap", "kube-rbac-proxy-ca.crt", NS)
    assert ca["data"]["ca.crt"].startswith("-----BEGIN CERTIFICATE-----")


def test_optional_apis_absent_drop_vpa_and_monitoring(monkeypatch):
    from chart import render as render

    monkeypatch.setattr(render, "API_VERSIONS", ())
    objects = render.render_values(matrix.case("defaults"))
    for kind in ("VerticalPodAutoscaler", "PodMonitor", "PrometheusRule"):
        assert names(objects, kind) == [], kind
    assert len(names(objects, "PodDisruptionBudget")) == 7


def test_prometheus_rules_need_the_operator_prometheus_crd_module(rendered):
    # lib-helm's gate of helm_lib_prometheus_rules; the PodMonitors need only the API
    values = matrix.case("defaults")
    values["global"]["enabledModules"].remove("operator-prometheus-crd")
    objects = render_values(values)
    assert names(objects, "PrometheusRule") == []
    assert names(objects, "PodMonitor") == names(rendered("defaults"), "PodMonitor")
    assert len(names(objects, "PodMonitor")) == 7


@pytest.mark.parametrize("case", ["no-credentials", "fresh-install"])
def test_without_credentials_the_chart_renders_and_the_components_wait(rendered, case):
    # Enabling the module on a running cluster: the namespace and the webhook that admits d8-credentials must be
    # there before the Secret can be created, so the release may not fail for want of it.
    objects = rendered(case)
    assert names(objects, "Namespace") == [NS]
    assert names(objects, "Deployment") == ALL_DEPLOYMENTS
    secrets = names(objects, "Secret")
    assert not [n for n in secrets if n.startswith("dvp-credentials")]
    assert "validation-webhook-tls" in secrets
    # The components keep their reference to the Secret: their pods wait for it (CreateContainerConfigError
    # naming it) and start when the credentials hook has it rendered.
    main = {"csi-controller": "csi-driver"}
    for deployment, secret in CREDENTIAL_USERS.items():
        c = container(find(objects, "Deployment", deployment), main.get(deployment, deployment))
        env = {e["name"]: e.get("valueFrom", {}).get("secretKeyRef") for e in c["env"]}
        assert env["DVP_KUBERNETES_CONFIG_BASE64"] == {"name": secret, "key": "kubernetesConfigBase64"}


def test_without_discovery_data_the_chart_renders_with_the_default_zone_and_no_storage_classes(rendered):
    objects = rendered("no-discovery-data")
    assert names(objects, "StorageClass") == []
    assert names(objects, "Deployment") == ALL_DEPLOYMENTS
    registration = find(objects, "Secret", "d8-node-manager-cloud-provider", "kube-system")
    assert base64.b64decode(registration["data"]["zones"]).decode() == '["default"]'


@pytest.mark.parametrize(("internal", "message"), [
    ({"validationWebhookCert": {"ca": "x", "crt": "y"}},
     "Secret validation-webhook-tls: cloudProviderDvp.internal.validationWebhookCert.key is required"),
])
def test_missing_internal_values_fail_naming_object_and_field(internal, message):
    values = matrix.build()
    values["cloudProviderDvp"]["internal"].update(internal)
    with pytest.raises(RenderError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        render_values(values)


def test_missing_image_digest_fails_naming_the_image():
    values = matrix.build()
    del values["global"]["modulesImages"]["digests"]["cloudProviderDvp"]["csiDriver"]
    with pytest.raises(RenderError, match="Image cloudProviderDvp.csiDriver has no digest"):
        render_values(values)


def test_capdvp_webhook_validates_machines_and_templates_through_its_service(rendered):
    config = find(rendered("defaults"), "ValidatingWebhookConfiguration", "d8-cloud-provider-dvp-capdvp")
    prefix = "/validate-infrastructure-cluster-x-k8s-io-v1alpha1-"
    assert [(w["name"], w["rules"], w["clientConfig"]["service"]) for w in config["webhooks"]] == [
        ("deckhousemachines.infrastructure.cluster.x-k8s.io",
         [{"apiGroups": ["infrastructure.cluster.x-k8s.io"], "apiVersions": ["v1alpha1"],
           "operations": ["CREATE", "UPDATE"], "resources": ["deckhousemachines"], "scope": "Namespaced"}],
         {"name": "capdvp-webhook", "namespace": NS, "path": prefix + "deckhousemachine", "port": 9443}),
        ("deckhousemachinetemplates.infrastructure.cluster.x-k8s.io",
         [{"apiGroups": ["infrastructure.cluster.x-k8s.io"], "apiVersions": ["v1alpha1"],
           "operations": ["CREATE", "UPDATE"], "resources": ["deckhousemachinetemplates"], "scope": "Namespaced"}],
         {"name": "capdvp-webhook", "namespace": NS, "path": prefix + "deckhousemachinetemplate", "port": 9443}),
    ]
    service = find(rendered("defaults"), "Service", "capdvp-webhook", NS)
    assert service["spec"]["ports"][0]["port"] == 9443


def _capdvp_env(objects):
    c = container(find(objects, "Deployment", "capdvp-controller-manager"), "capdvp-controller-manager")
    return {e["name"]: e.get("value") for e in c["env"]}


def test_capdvp_gets_additional_vm_labels_as_json():
    values = matrix.build({"nodes": {"parameters": {"additionalVMLabels": {"team": "a", "cost-center": "42"}}}})
    env = _capdvp_env(render_values(values))
    assert env["ADDITIONAL_VM_LABELS"] == '{"cost-center":"42","team":"a"}'


def test_capdvp_additional_vm_labels_default_to_an_empty_object(rendered):
    assert _capdvp_env(rendered("defaults"))["ADDITIONAL_VM_LABELS"] == "{}"

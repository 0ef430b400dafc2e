# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import base64
import os

import migration_resources as hook
import pytest
import yaml
from deckhouse import hook as sdk
from lib import migration
from lib import testing as t
from lib.errors import InvalidInput
from lib.fingerprint import sealed
from lib.testing import migration_fixtures as f
from lib.testing import upstream_fixtures as up

PATH = os.path.join(os.path.dirname(__file__), "migration_resources.py")
LABELS = {"heritage": "deckhouse", "module": "cloud-provider-dvp"}
MASTER_IC = migration.instance_class_name("master")
FRONT_IC = migration.instance_class_name("front")


def metric(value):
    return [
        {"action": "expire", "group": "d8_cloud_provider_dvp_migration"},
        {
            "name": "d8_cloud_provider_dvp_migration_pending",
            "group": "d8_cloud_provider_dvp_migration",
            "action": "set",
            "value": value,
        },
    ]


def run(snaps, kind="sync"):
    bc = (
        t.after_helm(snaps)
        if kind == "afterHelm"
        else (t.synchronization(hook, snaps) if kind == "sync" else t.event(hook, snaps, "module_config", "Modified"))
    )
    return sdk.testrun(hook.main, binding_context=bc, config_values={}, initial_values={}), bc


def bundle_data(op):
    return op["object"]["data"]["resources.yaml"]


def bundle_docs(op):
    return list(yaml.safe_load_all(base64.b64decode(op["object"]["data"]["resources.yaml"])))


@pytest.mark.parametrize("kind", ["afterHelm", "sync", "event"])
def test_pending_migration_publishes_bundle_marker_and_metric(kind):
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()])
    out, bc = run(snaps, kind)
    ops = out.kube_operations.data
    assert [(o["operation"], o["object"]["kind"], o["object"]["metadata"]) for o in ops] == [
        (
            "CreateOrUpdate",
            "Secret",
            {"name": "d8-migration-resources", "namespace": "d8-cloud-provider-dvp", "labels": LABELS,
             "annotations": {hook.SEAL_ANNOTATION: sealed(f.fingerprint(snaps), bundle_data(ops[0]))}},
        ),
        (
            "CreateOrUpdate",
            "ConfigMap",
            {"name": "d8-module-is-migrating", "namespace": "d8-cloud-provider-dvp", "labels": LABELS},
        ),
    ]
    assert bundle_docs(ops[0]) == [
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "cloud-provider.deckhouse.io/credentials",
            "metadata": {"name": "d8-credentials", "namespace": "d8-cloud-provider-dvp"},
            "stringData": {"authScheme": "kubeconfig", "secret": f.KUBECONFIG_B64},
        },
        {
            "apiVersion": "deckhouse.io/v1alpha1",
            "kind": "ModuleConfig",
            "metadata": {"name": "cloud-provider-dvp"},
            "spec": {
                "enabled": True,
                "version": 2,
                "settings": {
                    "provider": {"parameters": {"namespace": "tenant", "networkPolicy": "None"}},
                    "nodes": {
                        "parameters": {
                            "layout": "Standard",
                            "sshPublicKey": "ssh-ed25519 AAAA admin",
                            "region": "r1",
                            "zones": ["z1"],
                            "ingressPorts": [22, 443],
                            "ipAddresses": {"master": ["10.0.0.5"]},
                        }
                    },
                    "storage": {"parameters": {}},
                },
            },
        },
        {
            "apiVersion": "deckhouse.io/v1alpha1",
            "kind": "DVPInstanceClass",
            "metadata": {"name": MASTER_IC},
            "spec": {
                "virtualMachine": f.VM,
                "rootDisk": f.ROOT,
                "etcdDisk": {"size": "15Gi", "storageClass": "replicated"},
            },
        },
        {
            "apiVersion": "deckhouse.io/v1",
            "kind": "NodeGroup",
            "metadata": {"name": "master"},
            "spec": {
                "nodeType": "CloudPermanent",
                "cloudInstances": {
                    "classReference": {"kind": "DVPInstanceClass", "name": MASTER_IC},
                    "minPerZone": 1,
                    "maxPerZone": 1,
                    "zones": ["z1"],
                },
                "nodeTemplate": {
                    "labels": {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": ""}
                },
            },
        },
        {
            "apiVersion": "deckhouse.io/v1alpha1",
            "kind": "DVPInstanceClass",
            "metadata": {"name": FRONT_IC},
            "spec": {"virtualMachine": f.VM, "rootDisk": f.ROOT},
        },
        {
            "apiVersion": "deckhouse.io/v1",
            "kind": "NodeGroup",
            "metadata": {"name": "front"},
            "spec": {
                "nodeType": "CloudPermanent",
                "cloudInstances": {
                    "classReference": {"kind": "DVPInstanceClass", "name": FRONT_IC},
                    "minPerZone": 2,
                    "maxPerZone": 2,
                    "zones": ["z2"],
                },
                "nodeTemplate": {"labels": {"role": "front"}},
            },
        },
    ]
    assert out.metrics.data == metric(1) and out.values_patches.data == []
    t.assert_contract(hook, PATH, bc, {}, {}, out)
    # Next run sees what was written: nothing more to do.
    stored = dict(ops[0]["object"], metadata=dict(ops[0]["object"]["metadata"], uid="x"))
    snaps = t.snapshots(
        hook, legacy_cluster_configuration=[f.pcc_secret()], bundle_secret=[stored], marker_configmap=[ops[1]["object"]]
    )
    again, _ = run(snaps, kind)
    assert again.kube_operations.data == [] and again.metrics.data == metric(1)


def test_bundle_is_valid_against_our_instance_class_crd():
    import jsonschema

    crd = yaml.safe_load(t.read("crds/dvpinstanceclass.yaml"))
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    for doc in migration.bundle(f.PCC):
        if doc["kind"] == "DVPInstanceClass":
            jsonschema.validate(doc, schema)


def test_completed_migration_removes_bundle_and_marker():
    stored = t.secret("d8-cloud-provider-dvp", "d8-migration-resources", {"resources.yaml": "---\n"})
    marker = t.configmap("d8-cloud-provider-dvp", "d8-module-is-migrating")
    snaps = t.snapshots(
        hook,
        legacy_cluster_configuration=[f.pcc_secret()],
        bundle_secret=[stored],
        marker_configmap=[marker],
        **f.migrated(),
    )
    out, bc = run(snaps)
    assert out.kube_operations.data == [
        {
            "operation": "Delete",
            "kind": "Secret",
            "namespace": "d8-cloud-provider-dvp",
            "name": "d8-migration-resources",
            "apiVersion": "v1",
        },
        {
            "operation": "Delete",
            "kind": "ConfigMap",
            "namespace": "d8-cloud-provider-dvp",
            "name": "d8-module-is-migrating",
            "apiVersion": "v1",
        },
    ]
    assert out.metrics.data == metric(0)
    t.assert_contract(hook, PATH, bc, {}, {}, out)
    again, _ = run(t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], **f.migrated()))
    assert again.kube_operations.data == []


def test_no_legacy_configuration_emits_only_the_zero_metric():
    out, _ = run(t.snapshots(hook))
    assert out.kube_operations.data == [] and out.metrics.data == metric(0)


def test_invalid_legacy_configuration_is_rejected_before_anything_is_written():
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret(f.PCC | {"layout": "Other"})])
    message = (
        "Secret kube-system/d8-provider-cluster-configuration: "
        "data[cloud-provider-cluster-configuration.yaml].layout: must be one of Standard"
    )
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == message
    t.assert_process_rejects(PATH, t.after_helm(snaps), {}, {}, message)


def test_without_legacy_configuration_imports_nothing_heavy():
    snaps = t.snapshots(hook, module_config=[f.module_config()], credentials_secret=[f.credentials()])
    assert t.fresh_run(hook, t.after_helm(snaps), {})[2] == []


def steady_state():
    """The cluster after both migration hooks ran once on a pending migration: values from the beforeHelm hook,
    the bundle and the marker written by this one."""
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()])
    out, _ = run(snaps)
    bundle, marker = (op["object"] for op in out.kube_operations.data)
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], bundle_secret=[bundle],
                        marker_configmap=[marker])
    values = {"cloudProviderDvp": {"internal": {"migration": {"pending": True, "fingerprint": f.fingerprint(snaps)}}}}
    return snaps, values, bundle, marker


def test_unchanged_pending_migration_is_not_parsed_or_rebuilt():
    snaps, values, _, _ = steady_state()
    assert t.fresh_run(hook, t.synchronization(hook, snaps), values) == ([], [], [])


def test_a_hand_edited_bundle_is_written_again():
    _, values, bundle, marker = steady_state()
    edited = dict(bundle, data={"resources.yaml": base64.b64encode(b"---\n{}\n").decode()})
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], bundle_secret=[edited],
                        marker_configmap=[marker])
    out = sdk.testrun(hook.main, binding_context=t.synchronization(hook, snaps), config_values={},
                      initial_values=values)
    assert [op["object"] for op in out.kube_operations.data] == [bundle]


def test_a_stale_state_in_values_is_not_trusted():
    snaps, values, _, _ = steady_state()
    values["cloudProviderDvp"]["internal"]["migration"] = {"pending": False, "fingerprint": "0" * 64}
    out = sdk.testrun(hook.main, binding_context=t.synchronization(hook, snaps), config_values={},
                      initial_values=values)
    assert out.kube_operations.data == [] and out.metrics.data == metric(1)


def test_written_objects_are_valid_kubernetes_objects():
    import kubernetes_validate

    out, _ = run(t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()]))
    for op in out.kube_operations.data:
        kubernetes_validate.validate(op["object"], "1.33", strict=True)
    kubernetes_validate.validate(bundle_docs(out.kube_operations.data[0])[0], "1.33", strict=True)


@pytest.mark.parametrize(("info", "value"), [
    (None, 0),
    ('{"flags": {"cloudProviderNoPCCInputFormatSupported": "0"}}', 0),
    ("not json", 0),
    ('{"flags": {"cloudProviderNoPCCInputFormatSupported": "1"}}', 1),
])
def test_commander_managed_cluster_is_alerted_only_if_commander_supports_the_new_format(info, value):
    objects = {"legacy_cluster_configuration": [f.pcc_secret()],
               "commander_uuid": [t.configmap("kube-system", "d8-commander-uuid", {"uuid": "c"})]}
    if info is not None:
        objects["commander_agent"] = [t.configmap("d8-commander-agent", "commander-info", {"data.json": info})]
    out, bc = run(t.snapshots(hook, **objects))
    assert out.metrics.data == metric(value)
    assert [op["object"]["kind"] for op in out.kube_operations.data] == ["Secret", "ConfigMap"]
    t.assert_contract(hook, PATH, bc, {}, {}, out)


def test_v1_module_config_without_legacy_configuration_migrates_only_the_credentials():
    mc = f.module_config(1, False)
    mc["spec"]["settings"] = {"provider": {"kubeconfigDataBase64": f.KUBECONFIG_B64, "namespace": "tenant"}}
    out, bc = run(t.snapshots(hook, module_config=[mc]))
    assert [o["object"]["kind"] for o in out.kube_operations.data] == ["Secret", "ConfigMap"]
    assert bundle_docs(out.kube_operations.data[0]) == [
        {"apiVersion": "v1", "kind": "Secret", "type": "cloud-provider.deckhouse.io/credentials",
         "metadata": {"name": "d8-credentials", "namespace": "d8-cloud-provider-dvp"},
         "stringData": {"authScheme": "kubeconfig", "secret": f.KUBECONFIG_B64}}]
    assert out.metrics.data == metric(1)
    t.assert_contract(hook, PATH, bc, {}, {}, out)
    done, _ = run(t.snapshots(hook, module_config=[mc], credentials_secret=[f.credentials()]))
    assert done.kube_operations.data == [] and done.metrics.data == metric(0)


# Deckhouse's own hook tests, replayed (facts only). Upstream files, in deckhouse/deckhouse under
# modules/030-cloud-provider-dvp/hooks/: create_migration_resources_test.go@0012036b358746f95f846c6eaa8d90fa5658227c
# (CMR), migration_test.go@76036b9813b1aa448a721ffcdf0ca3b15d868072 (MIG), the artifact assertions of
# dvp_cluster_configuration_test.go@76036b9813b1aa448a721ffcdf0ca3b15d868072 (DCC) and
# migration_pending_metric_test.go@2b0aad2fe5d07cbb4caab9fd896e7c1f45c24f68 (METRIC; upstream keys the metric off
# the marker ConfigMap, ours off the same pending state that writes the marker).
DELETE_ARTIFACTS = [
    {"operation": "Delete", "kind": "Secret", "namespace": "d8-cloud-provider-dvp", "name": "d8-migration-resources",
     "apiVersion": "v1"},
    {"operation": "Delete", "kind": "ConfigMap", "namespace": "d8-cloud-provider-dvp", "name": "d8-module-is-migrating",
     "apiVersion": "v1"},
]


def up_run(**objects):
    return run(t.snapshots(hook, **objects), "afterHelm")[0]


def up_docs(out, kind):
    return [d for d in bundle_docs(out.kube_operations.data[0]) if d["kind"] == kind]


def kinds(out):
    return [(op["operation"], op["object"]["kind"]) for op in out.kube_operations.data]


def test_upstream_state_b_creates_the_bundle_and_the_marker():
    # CMR "State B: PCC present — OnAfterHelm creates migration resources secret"
    out = up_run(legacy_cluster_configuration=[up.pcc_secret()])
    assert kinds(out) == [("CreateOrUpdate", "Secret"), ("CreateOrUpdate", "ConfigMap")]
    # "... should generate ModuleConfig without explicit disabled fields"
    [mc] = up_docs(out, "ModuleConfig")
    settings = mc["spec"]["settings"]
    assert "disabled" not in settings["nodes"] and "disabled" not in settings["storage"]
    assert settings["storage"] == {"parameters": {}}
    # "... should generate NodeGroup and DVPInstanceClass with hashed instance class name": the source's zones kept
    [ic], [ng] = up_docs(out, "DVPInstanceClass"), up_docs(out, "NodeGroup")
    assert ic["metadata"]["name"] == up.MASTER_IC == "master-fc613b4dfd67"
    assert ng["spec"]["cloudInstances"]["classReference"] == {"kind": "DVPInstanceClass", "name": up.MASTER_IC}
    assert ng["spec"]["cloudInstances"]["zones"] == ["default"]
    assert "ipAddresses" not in ic["spec"]["virtualMachine"]
    assert settings["nodes"]["parameters"]["ipAddresses"] == {"master": ["Auto"]}


def test_upstream_state_b_without_zones_gives_no_zones():
    # CMR "State B (no zones): PCC without zones — NodeGroup must have empty zones"
    out = up_run(legacy_cluster_configuration=[up.pcc_secret(up.pcc(zones=None), discovery=None)])
    [ng] = up_docs(out, "NodeGroup")
    assert "zones" not in ng["spec"]["cloudInstances"]


def test_upstream_state_a_creates_nothing():
    # CMR "State A: no PCC — OnAfterHelm does not create migration resources"; DCC "State A: no PCC"
    out = up_run()
    assert out.kube_operations.data == [] and out.metrics.data == metric(0)


def test_upstream_state_a_removes_stale_artifacts():
    # DCC "State A: no PCC but stale migration artifacts exist"
    out = up_run(bundle_secret=[up.bundle_secret()], marker_configmap=[up.marker()])
    assert out.kube_operations.data == DELETE_ARTIFACTS


def test_upstream_hybrid_bundle_holds_the_credentials_only():
    # CMR "Hybrid migration: no PCC and legacy ModuleConfig v1 has kubeconfig": the bundle holds d8-credentials
    # (the Secret itself is not written). Upstream adds a v2 ModuleConfig (placeholders, null tombstones); ours
    # does not: Deckhouse converts the v1 settings itself (docs/MIGRATION.md, Hooks). Likewise "... without
    # namespace or zones".
    for mc in (up.module_config_v1(zones=["zone-a", "zone-b"]), up.module_config_v1(namespace=None)):
        out = up_run(module_config=[mc])
        assert kinds(out) == [("CreateOrUpdate", "Secret"), ("CreateOrUpdate", "ConfigMap")]
        assert bundle_docs(out.kube_operations.data[0]) == [
            {"apiVersion": "v1", "kind": "Secret", "type": "cloud-provider.deckhouse.io/credentials",
             "metadata": {"name": "d8-credentials", "namespace": "d8-cloud-provider-dvp"},
             "stringData": {"authScheme": "kubeconfig", "secret": f.KUBECONFIG_B64}}]


def test_upstream_state_a_v1_module_config_keeps_the_artifacts():
    # DCC "State A: no PCC and legacy ModuleConfig v1 has kubeconfig": the artifacts stay
    out = up_run(module_config=[up.module_config_v1()], bundle_secret=[up.bundle_secret()],
                 marker_configmap=[up.marker()])
    assert [op["operation"] for op in out.kube_operations.data] == ["CreateOrUpdate"]  # the bundle, re-sealed
    assert out.metrics.data == metric(1)


@pytest.mark.parametrize("keys", [
    ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk ca"],  # MIG PropagatesSSHCAKeys
    None,  # MIG OmitsSSHCAKeysWhenAbsent
    [],  # MIG OmitsSSHCAKeysWhenEmpty
])
def test_upstream_bundle_module_config_ssh_ca_keys(keys):
    out = up_run(legacy_cluster_configuration=[up.pcc_secret(up.pcc(sshCAKeys=keys))])
    [mc] = up_docs(out, "ModuleConfig")
    params = mc["spec"]["settings"]["nodes"]["parameters"]
    assert params["layout"] == "Standard" and params["sshPublicKey"] == "ssh-rsa AAAAB3N"
    if keys:
        assert params["sshCAKeys"] == keys
    else:
        assert "sshCAKeys" not in params


@pytest.mark.parametrize("class_reference", [False, True])
def test_upstream_state_c_artifacts(class_reference):
    # DCC "State C: ... all new resources applied" (and via an event): upstream deletes the artifacts. Ours
    # does once the NodeGroup names the migrated class; their NodeGroup names none, so they stay (docs/MIGRATION.md,
    # Hooks).
    objects = up.state_c(class_reference) | {"bundle_secret": [up.bundle_secret()], "marker_configmap": [up.marker()]}
    out = up_run(**objects)
    if class_reference:
        assert out.kube_operations.data == DELETE_ARTIFACTS and out.metrics.data == metric(0)
    else:
        assert [op["operation"] for op in out.kube_operations.data] == ["CreateOrUpdate"]
        assert out.metrics.data == metric(1)


@pytest.mark.parametrize("drop", ["instance_classes", "credentials_secret"])
def test_upstream_state_b_partial_keeps_the_artifacts(drop):
    # DCC "State B partial: NodeGroup applied but DVPInstanceClass missing" and "... d8-credentials Secret missing"
    objects = up.state_c(True) | {"bundle_secret": [up.bundle_secret()], "marker_configmap": [up.marker()]}
    del objects[drop]
    out = up_run(**objects)
    assert "Delete" not in [op["operation"] for op in out.kube_operations.data]
    assert out.metrics.data == metric(1)


COMMANDER = t.configmap("kube-system", "d8-commander-uuid", {"commander-uuid": "00000000-0000-0000-0000-000000000000"})


@pytest.mark.parametrize(("pending", "commander", "info", "value"), [
    (False, True, None, 0),  # METRIC "No migration marker ConfigMap" (0 where upstream sets nothing: no alert)
    (True, False, None, 1),  # METRIC "Migration marker present, no Commander (regular cluster)"
    (True, True, None, 0),  # METRIC "... Commander-managed, no commander-info"
    (True, True, '{"flags": {"cloudProviderNoPCCInputFormatSupported": "1"}}', 1),  # "... support flag = 1"
    (True, True, '{"flags": {"cloudProviderNoPCCInputFormatSupported": "0"}}', 0),  # "... support flag = 0"
    (True, True, '{"flags": {"commanderHAEnabled": "0"}}', 0),  # "... support flag absent"
    (True, True, "not-a-json", 0),  # "... invalid data.json" (and no failure)
])
def test_upstream_pending_metric(pending, commander, info, value):
    objects = {"legacy_cluster_configuration": [up.pcc_secret()]} if pending else {}
    if commander:
        objects["commander_uuid"] = [COMMANDER]
    if info is not None:
        objects["commander_agent"] = [t.configmap("d8-commander-agent", "commander-info", {"data.json": info})]
    assert up_run(**objects).metrics.data == metric(value)

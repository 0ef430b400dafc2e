# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import os

import legacy_cluster_configuration as hook
import pytest
import yaml
from deckhouse import hook as sdk
from lib import migration
from lib import testing as t
from lib.errors import InvalidInput
from lib.testing import migration_fixtures as f
from lib.testing import upstream_fixtures as up

PATH = os.path.join(os.path.dirname(__file__), "legacy_cluster_configuration.py")
START = {
    "cloudProviderDvp": {
        "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": "ssh-rsa PLACEHOLDER_REPLACE_ME"}},
        "internal": {},
    }
}


PROJECTED = ["nodes.parameters.ingressPorts", "nodes.parameters.layout", "nodes.parameters.region",
             "nodes.parameters.sshPublicKey", "nodes.parameters.zones", "provider.parameters.namespace",
             "provider.parameters.networkPolicy"]


def run(snaps, values=START, kind="sync", config=None):
    bc = t.synchronization(hook, snaps) if kind == "sync" else t.event(hook, snaps, "node_groups", "Deleted")
    return sdk.testrun(hook.main, binding_context=bc, config_values=config or {}, initial_values=values), bc


@pytest.mark.parametrize("kind", ["sync", "event"])
def test_pending_migration_projects_the_legacy_configuration(kind):
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], module_config=[f.module_config(1, False)])
    out, bc = run(snaps, kind=kind)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/nodes/parameters/sshPublicKey", "value": "ssh-ed25519 AAAA admin"},
        {"op": "add", "path": "/cloudProviderDvp/nodes/parameters/region", "value": "r1"},
        {"op": "add", "path": "/cloudProviderDvp/nodes/parameters/zones", "value": ["z1"]},
        {"op": "add", "path": "/cloudProviderDvp/nodes/parameters/ingressPorts", "value": [22, 443]},
        {"op": "add", "path": "/cloudProviderDvp/internal/migration",
         "value": {"pending": True, "fingerprint": f.fingerprint(snaps), "projected": PROJECTED}},
        {
            "op": "add",
            "path": "/cloudProviderDvp/provider",
            "value": {"parameters": {"namespace": "tenant", "networkPolicy": "None"}},
        },
    ]
    assert out.kube_operations.data == [] and out.metrics.data == []
    again, _ = run(snaps, t.apply(START, out.values_patches.data), kind)
    assert again.values_patches.data == []
    t.assert_contract(hook, PATH, bc, START, {}, out)


@pytest.mark.parametrize("missing", ["module_config", "credentials_secret", "node_groups", "instance_classes"])
def test_migration_stays_pending_until_every_new_object_exists(missing):
    objs = f.migrated()
    objs[missing] = objs[missing][:1] if missing in ("node_groups", "instance_classes") else []
    out, _ = run(t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], **objs))
    assert out.values["cloudProviderDvp"]["internal"]["migration"]["pending"] is True


def test_complete_migration_leaves_settings_alone():
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], **f.migrated())
    out, _ = run(snaps)
    assert out.values_patches.data == [{"op": "add", "path": "/cloudProviderDvp/internal/migration",
                                        "value": {"pending": False, "fingerprint": f.fingerprint(snaps)}}]


def test_no_legacy_configuration_means_nothing_to_migrate():
    snaps = t.snapshots(hook)
    out, _ = run(snaps)
    assert out.values_patches.data == [{"op": "add", "path": "/cloudProviderDvp/internal/migration",
                                        "value": {"pending": False, "fingerprint": f.fingerprint(snaps)}}]


OBJ = "Secret kube-system/d8-provider-cluster-configuration: data[cloud-provider-cluster-configuration.yaml]"


def without(path):
    doc = yaml.safe_load(yaml.safe_dump(f.PCC))
    node = doc
    *parents, leaf = path.split(".")
    for p in parents:
        node = node[p]
    del node[leaf]
    return doc


@pytest.mark.parametrize(
    ("secret", "message"),
    [
        (f.pcc_secret(text="provider: [\n"), f"{OBJ}: is not valid YAML at line 2"),
        (f.pcc_secret(text="- a\n"), f"{OBJ}: must be a mapping"),
        (f.pcc_secret(without("provider.namespace")), f"{OBJ}.provider.namespace: is required"),
        (f.pcc_secret(f.PCC | {"layout": "Other"}), f"{OBJ}.layout: must be one of Standard"),
        (
            f.pcc_secret(
                f.PCC
                | {"masterNodeGroup": {"replicas": "one", "instanceClass": f.PCC["masterNodeGroup"]["instanceClass"]}}
            ),
            f"{OBJ}.masterNodeGroup.replicas: must be of type integer",
        ),
    ],
)
def test_bad_legacy_configuration_is_rejected(secret, message):
    snaps = t.snapshots(hook, legacy_cluster_configuration=[secret])
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == message
    assert f.KUBECONFIG_B64 not in message
    t.assert_process_rejects(PATH, t.synchronization(hook, snaps), START, {}, message)


def test_a_bad_kubeconfig_value_is_named_not_printed():
    doc = yaml.safe_load(yaml.safe_dump(f.PCC))
    doc["provider"]["kubeconfigDataBase64"] = "secret-token-material!"
    with pytest.raises(InvalidInput) as err:
        run(t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret(doc)]))
    assert str(err.value).startswith(f"{OBJ}.provider.kubeconfigDataBase64: must match")
    assert "secret-token-material" not in str(err.value)


def test_without_legacy_configuration_imports_nothing_heavy():
    snaps = t.snapshots(hook, module_config=[f.module_config()], credentials_secret=[f.credentials()])
    patches, ops, heavy = t.fresh_run(hook, t.synchronization(hook, snaps), START)
    assert (patches, ops, heavy) == ([{"op": "add", "path": "/cloudProviderDvp/internal/migration",
                                       "value": {"pending": False, "fingerprint": f.fingerprint(snaps)}}], [], [])


def test_unchanged_legacy_configuration_is_not_parsed_again():
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], module_config=[f.module_config(1, False)])
    first, _ = run(snaps)
    steady = t.apply(START, first.values_patches.data)
    assert t.fresh_run(hook, t.synchronization(hook, snaps), steady) == ([], [], [])


def test_a_changed_input_is_checked_again_whatever_values_say():
    good = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()])
    first, _ = run(good)
    steady = t.apply(START, first.values_patches.data)
    bad = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret(f.PCC | {"layout": "Other"})])
    with pytest.raises(InvalidInput) as err:
        run(bad, steady)
    assert str(err.value) == f"{OBJ}.layout: must be one of Standard"
    # A new NodeGroup alone is a new input too: the state is computed again (still pending, new fingerprint).
    grown = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], node_groups=[f.node_group("front")])
    out, _ = run(grown, steady)
    assert out.values_patches.data == [{"op": "add", "path": "/cloudProviderDvp/internal/migration/fingerprint",
                                        "value": f.fingerprint(grown)}]


def test_v1_module_config_kubeconfig_alone_is_a_pending_migration_without_projection():
    mc = f.module_config(1, False)
    mc["spec"]["settings"] = {"provider": {"kubeconfigDataBase64": f.KUBECONFIG_B64, "namespace": "tenant"}}
    snaps = t.snapshots(hook, module_config=[mc])
    out, _ = run(snaps)
    assert out.values_patches.data == [{"op": "add", "path": "/cloudProviderDvp/internal/migration",
                                        "value": {"pending": True, "fingerprint": f.fingerprint(snaps)}}]
    out, _ = run(t.snapshots(hook, module_config=[mc], credentials_secret=[f.credentials()]))
    assert out.values["cloudProviderDvp"]["internal"]["migration"]["pending"] is False


KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk admin@example"


def config(namespace):
    return {"cloudProviderDvp": {"provider": {"parameters": {"namespace": namespace}},
                                 "nodes": {"parameters": {"layout": "Standard", "sshPublicKey": KEY}}}}


def test_settings_follow_the_module_config_again_once_the_migration_is_complete():
    pending = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()],
                          module_config=[f.module_config(1, False)])
    first, _ = run(pending)
    projected = t.apply(START, first.values_patches.data)
    done = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret()], **f.migrated())
    out, _ = run(done, projected, config=config("new-ns"))
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/nodes/parameters/sshPublicKey", "value": KEY},
        {"op": "remove", "path": "/cloudProviderDvp/nodes/parameters/region"},
        {"op": "remove", "path": "/cloudProviderDvp/nodes/parameters/zones"},
        {"op": "remove", "path": "/cloudProviderDvp/nodes/parameters/ingressPorts"},
        {"op": "add", "path": "/cloudProviderDvp/internal/migration/pending", "value": False},
        {"op": "add", "path": "/cloudProviderDvp/internal/migration/fingerprint", "value": f.fingerprint(done)},
        {"op": "add", "path": "/cloudProviderDvp/provider/parameters/namespace", "value": "new-ns"},
        {"op": "remove", "path": "/cloudProviderDvp/provider/parameters/networkPolicy"},
    ]
    after = t.apply(projected, out.values_patches.data)
    assert after["cloudProviderDvp"]["provider"] == config("new-ns")["cloudProviderDvp"]["provider"]
    assert after["cloudProviderDvp"]["nodes"] == config("new-ns")["cloudProviderDvp"]["nodes"]
    # A later ModuleConfig edit wins even where the hook's old values are replayed over it: the input is
    # unchanged (same fingerprint), the settings are set back all the same.
    replayed = t.apply(after, [{"op": "replace", "path": "/cloudProviderDvp/provider/parameters/namespace",
                                "value": "tenant"}])
    again, _ = run(done, replayed, config=config("newer-ns"))
    assert again.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/provider/parameters/namespace", "value": "newer-ns"}]
    steady, _ = run(done, t.apply(replayed, again.values_patches.data), config=config("newer-ns"))
    assert steady.values_patches.data == []


def test_a_namespace_with_a_final_newline_is_not_projected():
    # RE2's `$` is the end of the text: Python's re would let "tenant\n" through into the values.
    doc = yaml.safe_load(yaml.safe_dump(f.PCC))
    doc["provider"]["namespace"] = "tenant\n"
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret(doc)])
    message = f"{OBJ}.provider.namespace: must match ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == message
    t.assert_process_rejects(PATH, t.synchronization(hook, snaps), START, {}, message)


@pytest.mark.parametrize(("size", "valid"), [("1.2.3Gi", False), ("-12Gi", False), (8589934592, True), ("8Gi", True)])
def test_legacy_sizes_are_quantities_a_machine_takes(size, valid):
    doc = yaml.safe_load(yaml.safe_dump(f.PCC))
    doc["masterNodeGroup"]["instanceClass"]["virtualMachine"]["memory"]["size"] = size
    snaps = t.snapshots(hook, legacy_cluster_configuration=[f.pcc_secret(doc)])
    if valid:
        assert run(snaps)[0].values["cloudProviderDvp"]["internal"]["migration"]["pending"] is True
    else:
        with pytest.raises(InvalidInput, match=r"masterNodeGroup.instanceClass.virtualMachine.memory.size: must be "
                                               r"integer of at least 0 or string matching"):
            run(snaps)


# Deckhouse's own hook tests, replayed (facts only): deckhouse/deckhouse
# modules/030-cloud-provider-dvp/hooks/dvp_cluster_configuration_test.go@76036b9813b1aa448a721ffcdf0ca3b15d868072
# (DCC; the values and migration-state parts of its cases: its discovery data is discovery_data_test's, its
# credentials credentials_test's, its artifacts migration_resources_test's). Their state: lib/testing/upstream_fixtures.

UP_START = {"global": {"discovery": {}}, "cloudProviderDvp": {"internal": {}, "nodes": {}, "provider": {}}}


def up_run(values=UP_START, kind="sync", **objects):
    return run(t.snapshots(hook, **objects), values, kind)[0]


def test_upstream_instance_class_name_is_deckhouses():
    assert migration.instance_class_name("master") == up.MASTER_IC


def test_upstream_state_a_no_legacy_configuration():
    # DCC "State A: no PCC (new v2 cluster)" and "... stale migration artifacts exist": nothing to migrate,
    # nothing projected, no internal.providerClusterConfiguration
    out = up_run()
    assert out.values["cloudProviderDvp"] == {"internal": {"migration": {
        "pending": False, "fingerprint": f.fingerprint(t.snapshots(hook))}}, "nodes": {}, "provider": {}}


def test_upstream_state_a_v1_module_config_with_a_kubeconfig():
    # DCC "State A: no PCC and legacy ModuleConfig v1 has kubeconfig": still migrating (artifacts kept)
    out = up_run(module_config=[up.module_config_v1()])
    assert out.values["cloudProviderDvp"]["internal"]["migration"]["pending"] is True


@pytest.mark.parametrize("values", [UP_START, {"global": {"discovery": {}},
                                               "cloudProviderDvp": {"internal": {}, "provider": {}}}])
def test_upstream_state_b_projects_the_legacy_configuration(values):
    # DCC "State B: PCC present, new resources not yet applied" and "State B: ... cloudProviderDvp.nodes absent
    # in values" (the whole nodes object is made)
    out = up_run(values, legacy_cluster_configuration=[up.pcc_secret()])
    mod = out.values["cloudProviderDvp"]
    assert mod["provider"] == {"parameters": {"namespace": "cloud-provider01"}}
    assert mod["nodes"] == {"parameters": {"layout": "Standard", "sshPublicKey": "ssh-rsa AAAAB3N",
                                           "region": "ru-msk-1", "zones": ["default"]}}
    assert mod["internal"]["migration"]["pending"] is True
    assert "providerClusterConfiguration" not in mod["internal"]
    assert out.kube_operations.data == []  # the bundle and marker are written after Helm (migration_resources)


CA_KEYS = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk ca-1",
           "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTY= ca-2"]


def test_upstream_state_b_projects_ssh_ca_keys():
    # DCC "State B: PCC present, sshCAKeys set": beside sshPublicKey. Upstream's fixture lists certificates
    # (ssh-rsa-cert-v01@openssh.com ...), which our schema refuses: sshd trusts CA public keys.
    out = up_run(legacy_cluster_configuration=[up.pcc_secret(up.pcc(sshCAKeys=CA_KEYS))])
    params = out.values["cloudProviderDvp"]["nodes"]["parameters"]
    assert params["sshPublicKey"] == "ssh-rsa AAAAB3N" and params["sshCAKeys"] == CA_KEYS
    assert "nodes.parameters.sshCAKeys" in out.values["cloudProviderDvp"]["internal"]["migration"]["projected"]


@pytest.mark.parametrize("keys", [None, []])
def test_upstream_state_b_without_ssh_ca_keys(keys):
    # DCC "State B: PCC present, sshCAKeys absent (must not appear in values at all)"; an empty list likewise
    out = up_run(legacy_cluster_configuration=[up.pcc_secret(up.pcc(sshCAKeys=keys))])
    assert "sshCAKeys" not in out.values["cloudProviderDvp"]["nodes"]["parameters"]


def test_upstream_certificates_as_ssh_ca_keys_are_refused():
    doc = up.pcc(sshCAKeys=["ssh-rsa-cert-v01@openssh.com AAAACA", "ssh-rsa-cert-v01@openssh.com BBBBCB"])
    with pytest.raises(InvalidInput, match=r"^Secret kube-system/d8-provider-cluster-configuration: "
                                           r"data\[cloud-provider-cluster-configuration.yaml\].sshCAKeys\[0\]: "
                                           r"must match "):
        up_run(legacy_cluster_configuration=[up.pcc_secret(doc)])


def test_additional_users_are_no_legacy_field():
    # Not a DVPClusterConfiguration field in Deckhouse's schema either (additionalProperties: false there too)
    with pytest.raises(InvalidInput, match=r"data\[cloud-provider-cluster-configuration.yaml\]: "
                                           r"unknown field\(s\) additionalUsers$"):
        up_run(legacy_cluster_configuration=[up.pcc_secret(up.pcc(additionalUsers=["ops"]))])


def test_upstream_default_zone_is_not_projected():
    # DCC "setDefaultZones default-zone fallback" (3 cases): upstream fills zones [default] into a copy it only
    # validates, nothing reaches the values; here too a configuration without zones projects none. The discovery
    # data's zones default to [default] (discovery_data_test).
    out = up_run(legacy_cluster_configuration=[up.pcc_secret(up.pcc(zones=None))])
    assert "zones" not in out.values["cloudProviderDvp"]["nodes"]["parameters"]


@pytest.mark.parametrize("kind", ["sync", "event"])
def test_upstream_state_c_is_stricter_here(kind):
    # DCC "State C: PCC present, all new resources applied" and "... detected via NodeGroup/DVPInstanceClass
    # Added event": upstream counts the migration complete when a NodeGroup and a DVPInstanceClass of the
    # expected names exist. Ours also wants the NodeGroup to name that class (docs/MIGRATION.md, Hooks): their
    # NodeGroup names none, so the migration stays pending (and the alert keeps firing) until it does.
    out = up_run(kind=kind, **up.state_c())
    assert out.values["cloudProviderDvp"]["internal"]["migration"]["pending"] is True
    done = up_run(kind=kind, **up.state_c(class_reference=True))
    mod = done.values["cloudProviderDvp"]
    assert mod["internal"]["migration"]["pending"] is False
    assert (mod["provider"], mod["nodes"]) == ({}, {})  # the legacy configuration is not projected


def test_upstream_state_b_partial_instance_class_missing():
    # DCC "State B partial: NodeGroup applied but DVPInstanceClass missing": pending, values from the legacy
    # configuration
    out = up_run(legacy_cluster_configuration=[up.pcc_secret()], node_groups=[up.node_group(True)])
    mod = out.values["cloudProviderDvp"]
    assert mod["internal"]["migration"]["pending"] is True
    assert mod["provider"]["parameters"]["namespace"] == "cloud-provider01"


def test_upstream_state_b_partial_credentials_missing():
    # DCC "State B partial: ModuleConfig v2 applied but d8-credentials Secret missing"
    objects = up.state_c(class_reference=True)
    del objects["credentials_secret"]
    assert up_run(**objects).values["cloudProviderDvp"]["internal"]["migration"]["pending"] is True

# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import json
import os

import discovery_data as hook
import pytest
from deckhouse import hook as sdk
from lib import testing as t
from lib.errors import InvalidInput

PATH = os.path.join(os.path.dirname(__file__), "discovery_data.py")
SC = {"name": "replicated", "volumeBindingMode": "Immediate", "reclaimPolicy": "Delete",
      "allowVolumeExpansion": True, "isEnabled": True, "isDefault": True}
START = {"cloudProviderDvp": {"internal": {}}}


def discoverer(doc):
    return t.secret("kube-system", "d8-cloud-provider-discovery-data", {"discovery-data.json": json.dumps(doc)})


def bootstrap(doc):
    return t.secret("kube-system", "d8-candi-cloud-provider-discovery-data",
                    {"cloud-provider-discovery-data.json": json.dumps(doc)})


def legacy(doc):
    return t.secret("kube-system", "d8-provider-cluster-configuration", {
        "cloud-provider-cluster-configuration.yaml": "apiVersion: deckhouse.io/v1\n",
        "cloud-provider-discovery-data.json": json.dumps(doc)})


def run(snaps, bc=None, values=START):
    bc = bc or t.synchronization(hook, snaps)
    return sdk.testrun(hook.main, binding_context=bc, config_values={}, initial_values=values)


@pytest.mark.parametrize("kind", ["sync", "event"])
def test_discoverer_data_becomes_values(kind):
    snaps = t.snapshots(hook, discoverer=[discoverer({"storageClasses": [SC], "zones": ["z1", "z2"]})])
    bc = t.synchronization(hook, snaps) if kind == "sync" else t.event(hook, snaps, hook.SNAPSHOT_DISCOVERER)
    out = run(snaps, bc)
    expected = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["z1", "z2"],
                "storageClasses": [SC]}
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/providerDiscoveryData", "value": expected}]
    assert out.kube_operations.data == [] and out.metrics.data == []
    assert run(snaps, bc, t.apply(START, out.values_patches.data)).values_patches.data == []
    t.assert_contract(hook, PATH, bc, START, {}, out)


def test_nothing_published_gives_the_defaults():
    out = run(t.snapshots(hook))
    assert out.values["cloudProviderDvp"]["internal"]["providerDiscoveryData"] == {
        "apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["default"]}


def test_sources_merge_field_by_field_first_wins():
    old = dict(SC, name="old", IsDefault=False)
    old.pop("isDefault")
    snaps = t.snapshots(
        hook,
        discoverer=[discoverer({"storageClasses": [SC]})],
        bootstrap_discovery_data=[bootstrap({"zones": ["a"], "layout": "Standard"})],
        legacy_cluster_configuration=[legacy({"zones": ["b"], "storageClasses": [old]})],
    )
    got = run(snaps).values["cloudProviderDvp"]["internal"]["providerDiscoveryData"]
    assert got == {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["a"],
                   "layout": "Standard", "storageClasses": [SC]}
    snaps = t.snapshots(hook, legacy_cluster_configuration=[legacy({"zones": ["b"], "storageClasses": [old]})])
    got = run(snaps).values["cloudProviderDvp"]["internal"]["providerDiscoveryData"]
    assert got["storageClasses"] == [dict(SC, name="old", isDefault=False)] and got["zones"] == ["b"]


OBJ = "Secret kube-system/d8-cloud-provider-discovery-data: data[discovery-data.json]"


@pytest.mark.parametrize(("secret", "message"), [
    (t.secret("kube-system", "d8-cloud-provider-discovery-data", {"discovery-data.json": "{zones: ["}),
     f"{OBJ}: is not valid JSON at line 1 column 2"),
    (discoverer([1]), f"{OBJ}: must be a mapping"),
    (discoverer({"zones": []}), f"{OBJ}.zones: violates minItems 1"),
    (discoverer({"storageClasses": [dict(SC, volumeBindingMode="Later")]}),
     f"{OBJ}.storageClasses[0].volumeBindingMode: must be one of Immediate, WaitForFirstConsumer"),
    (discoverer({"storageClasses": [{"reclaimPolicy": "Delete"}]}), f"{OBJ}.storageClasses[0].name: is required"),
    (discoverer({"kind": "Other"}), f"{OBJ}.kind: must be one of DVPCloudDiscoveryData"),
    (discoverer({"extra": 1}), f"{OBJ}: unknown field(s) extra"),
])
def test_bad_discovery_data_is_rejected(secret, message):
    snaps = t.snapshots(hook, discoverer=[secret])
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == message
    t.assert_process_rejects(PATH, t.synchronization(hook, snaps), START, {}, message)


def test_bad_base64_is_rejected():
    bad = discoverer({})
    bad["data"]["discovery-data.json"] = "%%%"
    with pytest.raises(InvalidInput, match=r"^Secret kube-system/d8-cloud-provider-discovery-data: "
                       r"data\[discovery-data.json\]: is not valid base64"):
        run(t.snapshots(hook, discoverer=[bad]))


def test_steady_state_needs_no_schema():
    snaps = t.snapshots(hook, discoverer=[discoverer({"storageClasses": [SC], "zones": ["z1"]})])
    bc = t.synchronization(hook, snaps)
    out = run(snaps, bc)
    assert t.fresh_run(hook, bc, t.apply(START, out.values_patches.data)) == ([], [], [])
    # A change is validated again.
    bad = t.snapshots(hook, discoverer=[discoverer({"storageClasses": [SC], "zones": []})])
    with pytest.raises(InvalidInput, match=r"zones: violates minItems 1"):
        run(bad, values=t.apply(START, out.values_patches.data))


@pytest.mark.parametrize("classes", [5, True, "replicated", {"name": "x"}])
def test_storage_classes_of_another_type_are_named_not_a_traceback(classes):
    snaps = t.snapshots(hook, discoverer=[discoverer({"storageClasses": classes})])
    message = f"{OBJ}.storageClasses: must be of type array"
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == message
    t.assert_process_rejects(PATH, t.synchronization(hook, snaps), START, {}, message)


def test_the_same_input_gets_the_same_verdict_warm_or_after_a_restart():
    # The bootstrap source's zones are shadowed by the discoverer's: they never reach the values, so they are not
    # judged, whether the merged result is already in values (warm) or not (after a restart).
    snaps = t.snapshots(hook, discoverer=[discoverer({"zones": ["z1"]})],
                        bootstrap_discovery_data=[bootstrap({"zones": [], "layout": "Standard"})])
    cold = run(snaps)
    merged = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["z1"], "layout": "Standard"}
    assert cold.values["cloudProviderDvp"]["internal"]["providerDiscoveryData"] == merged
    warm = run(snaps, values=t.apply(START, cold.values_patches.data))
    assert warm.values_patches.data == []
    # What a lower source does contribute is judged, in both cases.
    bad = t.snapshots(hook, discoverer=[discoverer({"zones": ["z1"]})],
                      bootstrap_discovery_data=[bootstrap({"layout": "Other"})])
    boot = "Secret kube-system/d8-candi-cloud-provider-discovery-data: data[cloud-provider-discovery-data.json]"
    for values in (START, t.apply(START, cold.values_patches.data)):
        with pytest.raises(InvalidInput) as err:
            run(bad, values=values)
        assert str(err.value) == f"{boot}.layout: must be one of Standard"


# Deckhouse's own hook tests, replayed (facts only). Upstream files, in deckhouse/deckhouse under
# modules/030-cloud-provider-dvp/hooks/: dvp_cluster_configuration_test.go@76036b9813b1aa448a721ffcdf0ca3b15d868072
# (DCC: its "Discovery: ..." and discovery assertions; there the standalone Secret lives in d8-cloud-provider-dvp,
# at 00fc5d18444a928f6f7d5ca76e1306d81bcc0dd9 in kube-system) and
# discover_test.go@071edc87db307e0faf5c0c12e4bb8af8d3fcb90d (DISCOVER).
CANDI = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["candi-zone"]}
PCC_ONLY = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["pcc-zone"]}
DEFAULTS = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["default"]}


def candi(doc, namespace="d8-cloud-provider-dvp"):
    return t.secret(namespace, "d8-candi-cloud-provider-discovery-data",
                    {"cloud-provider-discovery-data.json": json.dumps(doc)})


def discovered(**objects):
    return run(t.snapshots(hook, **objects)).values["cloudProviderDvp"]["internal"]["providerDiscoveryData"]


def test_upstream_only_the_legacy_secret():
    # DCC "Discovery: only PCC secret present (no candi secret)" and "State B"/"State C": its discovery data
    assert discovered(legacy_cluster_configuration=[legacy(PCC_ONLY)]) == PCC_ONLY


@pytest.mark.parametrize("namespace", ["d8-cloud-provider-dvp", "kube-system"])
def test_upstream_only_the_bootstrap_secret(namespace):
    # DCC "Discovery: only candi secret present, no PCC": in the module's namespace (newer dhctl), or in
    # kube-system as an older upstream read it
    assert discovered(bootstrap_discovery_data=[candi(CANDI, namespace)]) == CANDI


def test_upstream_the_bootstrap_secret_wins_over_the_legacy_one():
    # DCC "Discovery: both candi and PCC secrets present — candi takes priority"
    assert discovered(bootstrap_discovery_data=[candi(CANDI)],
                      legacy_cluster_configuration=[legacy(PCC_ONLY)]) == CANDI


def test_the_module_namespace_wins_over_kube_system():
    got = discovered(bootstrap_discovery_data=[candi({"zones": ["old"], "layout": "Standard"}, "kube-system"),
                                               candi(CANDI)])
    assert got == CANDI | {"layout": "Standard"}


def test_a_bad_bootstrap_secret_is_named_with_its_namespace():
    snaps = t.snapshots(hook, bootstrap_discovery_data=[candi({"zones": []})])
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == ("Secret d8-cloud-provider-dvp/d8-candi-cloud-provider-discovery-data: "
                              "data[cloud-provider-discovery-data.json].zones: violates minItems 1")


def test_an_empty_bootstrap_secret_is_no_source():
    empty = candi({})
    empty["data"] = {"cloud-provider-discovery-data.json": ""}
    assert discovered(bootstrap_discovery_data=[empty], legacy_cluster_configuration=[legacy(PCC_ONLY)]) == PCC_ONLY


def test_upstream_neither_secret():
    # DCC "Discovery: neither PCC nor candi secret present — hybrid install" and "State A: no PCC"
    assert discovered() == DEFAULTS


def test_upstream_legacy_secret_without_discovery_data():
    # DCC "Discovery: PCC present but without discovery data key — hybrid migration"
    pcc = legacy({})
    del pcc["data"]["cloud-provider-discovery-data.json"]
    assert discovered(legacy_cluster_configuration=[pcc]) == DEFAULTS


def test_upstream_invalid_discovery_payload_fails():
    # DISCOVER "When discovery data secret contains invalid payload": storageClasses of another type
    snaps = t.snapshots(hook, discoverer=[discoverer({"apiVersion": "deckhouse.io/v1",
                                                      "kind": "DVPCloudDiscoveryData", "storageClasses": "broken"})])
    with pytest.raises(InvalidInput) as err:
        run(snaps)
    assert str(err.value) == f"{OBJ}.storageClasses: must be of type array"


def test_upstream_discoverer_data_with_classes():
    # DISCOVER "When discovery data and managed StorageClasses are present": apiVersion, kind, zones
    doc = {"apiVersion": "deckhouse.io/v1", "kind": "DVPCloudDiscoveryData", "zones": ["default"],
           "storageClasses": [SC, dict(SC, name="Disabled", isEnabled=False, isDefault=False)]}
    assert discovered(discoverer=[discoverer(doc)]) == doc

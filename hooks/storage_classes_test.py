# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0

import os

import pytest
import storage_classes as hook
from deckhouse import hook as sdk
from lib import testing as t
from lib.errors import InvalidInput

PATH = os.path.join(os.path.dirname(__file__), "storage_classes.py")
PROVIDER = {"parameters": {"namespace": "tenant"}}


def parent(name, default=False, **kw):
    return {"name": name, "volumeBindingMode": "Immediate", "reclaimPolicy": "Delete", "allowVolumeExpansion": True,
            "isEnabled": True, "isDefault": default} | kw


def values(classes, excluded=None, internal=None, global_=None):
    mod = {"provider": PROVIDER,
           "internal": {"providerDiscoveryData": {"zones": ["default"], "storageClasses": classes}} | (internal or {})}
    if excluded is not None:
        mod["storage"] = {"parameters": {"excludedStorageClasses": excluded}}
    return {"global": global_ or {}, "cloudProviderDvp": mod}


def storage_class(name, dvp, ours=True, default=False, mode="WaitForFirstConsumer", reclaim="Delete"):
    meta = {"name": name, "uid": "u-" + name, "labels": {"heritage": "deckhouse", "module": "cloud-provider-dvp"}
            if ours else {}, "annotations": {"storageclass.kubernetes.io/is-default-class": "true"} if default else {}}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta,
            "provisioner": "csi.dvp.deckhouse.io" if ours else "other.csi", "parameters": {"dvpStorageClass": dvp},
            "volumeBindingMode": mode, "reclaimPolicy": reclaim, "allowVolumeExpansion": True}


def run(vals, *objects, kind="sync"):
    snaps = t.snapshots(hook, storage_classes=list(objects))
    bc = t.synchronization(hook, snaps) if kind == "sync" else t.event(hook, snaps, hook.SNAPSHOT, "Modified")
    return sdk.testrun(hook.main, binding_context=bc, config_values={}, initial_values=vals), bc


def item(name, dvp, default=False, reclaim="Delete", expand=True):
    return {"name": name, "dvpStorageClass": dvp, "volumeBindingMode": "WaitForFirstConsumer",
            "reclaimPolicy": reclaim, "allowVolumeExpansion": expand, "isDefault": default}


EXPIRE = {"action": "expire", "group": "d8_cloud_provider_dvp_default_storage_class"}


@pytest.mark.parametrize("kind", ["sync", "event"])
def test_parent_classes_become_values(kind):
    vals = values([parent("Fast SSD_1", reclaimPolicy="Retain"), parent("replicated", default=True),
                   parent("off", isEnabled=False)])
    out, bc = run(vals, kind=kind)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/storageClasses",
         "value": [item("fast-ssd1", "Fast SSD_1", reclaim="Retain"), item("replicated", "replicated", True)]},
        {"op": "add", "path": "/cloudProviderDvp/internal/defaultStorageClass", "value": "replicated"},
    ]
    assert out.kube_operations.data == []
    # A fresh install: the expected default does not exist before Helm creates it, so nothing has drifted.
    assert out.metrics.data == [EXPIRE]
    t.assert_contract(hook, PATH, bc, vals, {}, out)
    # Helm created the classes and annotated the default: nothing changes and nothing drifts.
    after = t.apply(vals, out.values_patches.data)
    again, _ = run(after, storage_class("fast-ssd1", "Fast SSD_1", reclaim="Retain"),
                   storage_class("replicated", "replicated", default=True))
    assert again.values_patches.data == [] and again.kube_operations.data == [] and again.metrics.data == [EXPIRE]


def test_all_excluded_gives_an_empty_list_and_no_default():
    vals = values([parent("replicated", default=True), parent("local-thin")], excluded=["local-.*", "repl.*"],
                  internal={"defaultStorageClass": "replicated"})
    out, _ = run(vals)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/storageClasses", "value": []},
        {"op": "remove", "path": "/cloudProviderDvp/internal/defaultStorageClass"}]
    assert out.metrics.data == [EXPIRE]


def test_exclusion_is_a_full_match():
    out, _ = run(values([parent("local"), parent("local-thin")], excluded=["local"]))
    assert [c["name"] for c in out.values["cloudProviderDvp"]["internal"]["storageClasses"]] == ["local-thin"]


def test_no_discovery_data_still_publishes_a_list():
    out, _ = run({"cloudProviderDvp": {"provider": PROVIDER, "internal": {}}})
    assert out.values_patches.data == [{"op": "add", "path": "/cloudProviderDvp/internal/storageClasses", "value": []}]


def test_classes_the_parent_stops_reporting_are_kept():
    out, _ = run(values([parent("replicated")]), storage_class("gone", "gone-parent"),
                 storage_class("foreign", "x", ours=False))
    assert out.values["cloudProviderDvp"]["internal"]["storageClasses"] == [
        item("gone", "gone-parent"), item("replicated", "replicated")]


def test_a_parent_marked_skipped_is_not_published_not_even_as_a_kept_class():
    # the discoverer writes a skipped class without isEnabled (omitempty: absent is false), never as default
    skipped = {"name": "local-disks", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete"}
    vals = values([parent("replicated", default=True), skipped])
    out, _ = run(vals, storage_class("local-disks", "local-disks"), storage_class("replicated", "replicated"))
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/storageClasses",
         "value": [item("replicated", "replicated", True)]},
        {"op": "add", "path": "/cloudProviderDvp/internal/defaultStorageClass", "value": "replicated"}]
    assert out.kube_operations.data == []  # Helm removes the class it no longer renders; volumes keep working


def test_a_class_with_changed_immutable_fields_is_recreated():
    out, _ = run(values([parent("replicated")]), storage_class("replicated", "replicated", mode="Immediate"))
    assert out.kube_operations.data == [{"operation": "Delete", "kind": "StorageClass", "namespace": "",
                                         "name": "replicated", "apiVersion": "storage.k8s.io/v1"}]


def test_hand_changed_default_is_reported_not_reverted():
    vals = values([parent("replicated", default=True), parent("fast")], internal={"defaultStorageClass": "replicated"})
    out, _ = run(vals, storage_class("replicated", "replicated"), storage_class("fast", "fast", default=True))
    assert out.kube_operations.data == []
    assert out.metrics.data[1]["labels"] == {"actual": "fast", "expected": "replicated"}
    # An explicit global choice is the expected default.
    vals["global"] = {"defaultClusterStorageClass": "fast"}
    out, _ = run(vals, storage_class("replicated", "replicated"), storage_class("fast", "fast", default=True))
    assert out.metrics.data == [EXPIRE]


DRIFTED = "d8_cloud_provider_dvp_default_storage_class_drifted"


def test_a_missing_expected_default_is_no_drift_but_a_present_one_is():
    vals = values([parent("replicated", default=True)])
    out, _ = run(vals, storage_class("other", "x", ours=False, default=True))
    assert out.metrics.data == [EXPIRE]
    out, _ = run(vals, storage_class("other", "x", ours=False, default=True), storage_class("replicated", "replicated"))
    assert out.metrics.data == [EXPIRE, {"name": DRIFTED, "group": EXPIRE["group"], "action": "set", "value": 1,
                                         "labels": {"actual": "other", "expected": "replicated"}}]


def test_the_default_survives_a_restart_when_discovery_has_no_classes():
    # After a restart values are empty and the discoverer has not published classes yet: the class Helm
    # annotated as default stays the default instead of being stripped.
    for discovered in ([], None):
        vals = {"global": {}, "cloudProviderDvp": {"provider": PROVIDER, "internal": {"providerDiscoveryData": {
            "zones": ["default"], **({"storageClasses": discovered} if discovered is not None else {})}}}}
        out, _ = run(vals, storage_class("replicated", "replicated", default=True), storage_class("slow", "slow"))
        assert out.values_patches.data == [
            {"op": "add", "path": "/cloudProviderDvp/internal/storageClasses",
             "value": [item("replicated", "replicated", default=True), item("slow", "slow")]},
            {"op": "add", "path": "/cloudProviderDvp/internal/defaultStorageClass", "value": "replicated"}]
        assert out.metrics.data == [EXPIRE]


def test_a_discovered_default_wins_over_a_kept_one():
    out, _ = run(values([parent("b-new", default=True)]), storage_class("a-old", "a-old", default=True))
    assert out.values["cloudProviderDvp"]["internal"]["defaultStorageClass"] == "b-new"
    assert out.values["cloudProviderDvp"]["internal"]["storageClasses"] == [
        item("a-old", "a-old"), item("b-new", "b-new", default=True)]


@pytest.mark.parametrize(("pattern", "reason"), [
    ("bad[", "is not a valid RE2 regular expression (missing ])"),
    # Python's re accepts lookahead; Deckhouse (Go, RE2) does not
    ("(?!local).*", "is not a valid RE2 regular expression (invalid perl operator)"),
    ("(a)\\1", "is not a valid RE2 regular expression (invalid escape sequence)"),
])
def test_bad_exclusion_regex_is_rejected(pattern, reason):
    vals = values([parent("replicated")], excluded=["ok", pattern])
    message = f"ModuleConfig cloud-provider-dvp: {hook.sc.EXCLUDED_FIELD}[1]: {reason}"
    with pytest.raises(InvalidInput) as err:
        run(vals)
    assert str(err.value) == message
    t.assert_process_rejects(PATH, t.synchronization(hook, t.snapshots(hook)), vals, {}, message)


def test_exclusion_anchors_are_the_whole_name():
    # RE2's `$` is the end of the text; the match is a full match either way
    out, _ = run(values([parent("local"), parent("local-x")], excluded=["local$"]))
    assert [c["name"] for c in out.values["cloudProviderDvp"]["internal"]["storageClasses"]] == ["local-x"]


def test_imports_nothing_heavy():
    vals = values([parent("replicated", default=True)])
    snaps = t.snapshots(hook, storage_classes=[storage_class("replicated", "replicated", default=True)])
    patches, ops, heavy = t.fresh_run(hook, t.synchronization(hook, snaps), vals)
    assert heavy == [] and ops == [] and len(patches) == 2


# Deckhouse's own hook tests, replayed (facts only). Upstream files, all in deckhouse/deckhouse under
# modules/030-cloud-provider-dvp/hooks/: storage_classes_test.go@e64d4bc97bbfad0275ba13c018ba0b0071bfddaa (SC),
# internal/storage_classes_test.go@071edc87db307e0faf5c0c12e4bb8af8d3fcb90d (INTERNAL) and the StorageClass cases
# of discover_test.go@071edc87db307e0faf5c0c12e4bb8af8d3fcb90d (DISCOVER), which the split into
# storage_classes.go moved to SC. The classes of their fixtures, as the API serves them:


def upstream_class(name, dvp, mode, reclaim, expand, annotations=None):
    meta = {"name": name, "uid": "u-" + name, "labels": {"heritage": "deckhouse", "module": "cloud-provider-dvp"},
            "annotations": annotations or {}}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta,
            "provisioner": "csi.dvp.deckhouse.io", "parameters": {"dvpStorageClass": dvp},
            "volumeBindingMode": mode, "reclaimPolicy": reclaim, "allowVolumeExpansion": expand}


STABLE_DEFAULT = {"storageclass.kubernetes.io/is-default-class": "true"}
REPLICATED = upstream_class("replicated", "replicated", "Immediate", "Delete", True, STABLE_DEFAULT)
SECONDARY = upstream_class("secondary", "secondary", "WaitForFirstConsumer", "Retain", False)
RETAINED = upstream_class("retained", "retained", "WaitForFirstConsumer", "Retain", False)
EXCLUDED_LEGACY = upstream_class("excluded-legacy", "Excluded Legacy", "WaitForFirstConsumer", "Delete", False)
UPSTREAM_PARENTS = [parent("replicated", default=True), parent("Excluded Fast", reclaimPolicy="Retain",
                                                               allowVolumeExpansion=False),
                    parent("Disabled", isEnabled=False, allowVolumeExpansion=False)]
DELETE_REPLICATED = [{"operation": "Delete", "kind": "StorageClass", "namespace": "", "name": "replicated",
                      "apiVersion": "storage.k8s.io/v1"}]


def only_classes(excluded=None, internal=None):
    """Values before any discovery data: the provider set, no providerDiscoveryData."""
    mod = {"provider": PROVIDER, "internal": internal or {}}
    if excluded is not None:
        mod["storage"] = {"parameters": {"excludedStorageClasses": excluded}}
    return {"global": {}, "cloudProviderDvp": mod}


def test_upstream_empty_cluster():
    # SC, DISCOVER "When cluster state is empty": nothing to publish and no default. Upstream leaves the list
    # unset; ours publishes [] (the templates read a list, always).
    out, _ = run(only_classes())
    assert out.values_patches.data == [{"op": "add", "path": "/cloudProviderDvp/internal/storageClasses", "value": []}]


def test_upstream_only_managed_classes():
    # SC, DISCOVER "When only managed StorageClass snapshots are present": kept as they are, the binding mode
    # normalised (an Immediate class is deleted for Helm to create anew), the annotated class the default.
    out, _ = run(only_classes(), REPLICATED, SECONDARY, EXCLUDED_LEGACY)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/storageClasses",
         "value": [item("excluded-legacy", "Excluded Legacy", expand=False), item("replicated", "replicated", True),
                   item("secondary", "secondary", reclaim="Retain", expand=False)]},
        {"op": "add", "path": "/cloudProviderDvp/internal/defaultStorageClass", "value": "replicated"}]
    assert out.kube_operations.data == DELETE_REPLICATED


def test_upstream_only_managed_classes_with_excludes():
    # SC, DISCOVER "... and excludes are set": the exclusion applies to kept classes; a stale default goes.
    out, _ = run(only_classes(["excluded-.*"], {"defaultStorageClass": "stale-default"}),
                 REPLICATED, SECONDARY, EXCLUDED_LEGACY)
    internal = out.values["cloudProviderDvp"]["internal"]
    assert internal["storageClasses"] == [item("replicated", "replicated", True),
                                          item("secondary", "secondary", reclaim="Retain", expand=False)]
    assert internal["defaultStorageClass"] == "replicated"


def test_upstream_discovery_data_and_managed_classes():
    # SC, DISCOVER "When discovery data and managed StorageClasses are present": merged, excluded classes
    # (by the local name) and disabled parents left out.
    out, _ = run(values(UPSTREAM_PARENTS, excluded=["excluded-.*"]), REPLICATED, RETAINED, EXCLUDED_LEGACY)
    assert out.values_patches.data == [
        {"op": "add", "path": "/cloudProviderDvp/internal/storageClasses",
         "value": [item("replicated", "replicated", True),
                   item("retained", "retained", reclaim="Retain", expand=False)]},
        {"op": "add", "path": "/cloudProviderDvp/internal/defaultStorageClass", "value": "replicated"}]
    assert out.kube_operations.data == DELETE_REPLICATED


def test_upstream_plain_name_exclusion_is_a_whole_name():
    # SC "When excludedStorageClasses contains a plain StorageClass name"
    out, _ = run(values([parent("fast", allowVolumeExpansion=False), parent("ultra-fast-ssd",
                                                                              allowVolumeExpansion=False)],
                        excluded=["fast"]))
    assert out.values["cloudProviderDvp"]["internal"]["storageClasses"] == [
        item("ultra-fast-ssd", "ultra-fast-ssd", expand=False)]


def test_upstream_excluding_the_default_drops_it():
    # SC "When excludedStorageClasses contains the default StorageClass"
    out, _ = run(values(UPSTREAM_PARENTS, excluded=["replicated"]), REPLICATED)
    internal = out.values["cloudProviderDvp"]["internal"]
    assert internal["storageClasses"] == [item("excluded-fast", "Excluded Fast", reclaim="Retain", expand=False)]
    assert "defaultStorageClass" not in internal


def test_upstream_invalid_exclusion_fails():
    # SC, DISCOVER "When excludedStorageClasses contains an invalid regular expression": a failure, not a panic
    vals = only_classes(["excluded-([a-z"])
    message = (f"ModuleConfig cloud-provider-dvp: {hook.sc.EXCLUDED_FIELD}[0]: "
               "is not a valid RE2 regular expression (missing ])")
    with pytest.raises(InvalidInput) as err:
        run(vals, REPLICATED, SECONDARY, EXCLUDED_LEGACY)
    assert str(err.value) == message


def test_upstream_no_discovered_default_removes_a_stale_one():
    # SC, DISCOVER "When no discovered class is marked as default"
    out, _ = run(values([parent("replicated")], internal={"defaultStorageClass": "stale-default"}))
    assert {"op": "remove", "path": "/cloudProviderDvp/internal/defaultStorageClass"} in out.values_patches.data
    assert "defaultStorageClass" not in out.values["cloudProviderDvp"]["internal"]


@pytest.mark.parametrize("vals", [{"cloudProviderDvp": {"internal": {}}}, {"global": {}}])
def test_upstream_settings_not_there_yet(vals):
    # SC "When the module configuration is not ready yet" (and DISCOVER "... on OperatorStartup but no
    # ModuleConfig"): while cloudProviderDvp.provider is unset any values patch fails validation, so the run
    # changes nothing.
    out, _ = run(vals, REPLICATED, SECONDARY)
    assert (out.values_patches.data, out.kube_operations.data, out.metrics.data) == ([], [], [])


@pytest.mark.parametrize(("annotations", "default"), [
    ({}, False),  # INTERNAL "uses defaults for nil optional fields"
    ({"storageclass.kubernetes.io/is-default-class": "TrUe"}, True),  # INTERNAL "reads stable default annotation"
    ({"storageclass.beta.kubernetes.io/is-default-class": "true"}, True),  # INTERNAL "reads beta default annotation"
    ({"storageclass.kubernetes.io/is-default-class": "false",
      "storageclass.beta.kubernetes.io/is-default-class": "true"}, True),
    ({"storageclass.kubernetes.io/is-default-class": "yes"}, False),
])
def test_upstream_a_kept_class_reads_either_default_annotation(annotations, default):
    sc = upstream_class("kept", "kept", "WaitForFirstConsumer", "Delete", False, annotations)
    out, _ = run(only_classes(), sc)
    internal = out.values["cloudProviderDvp"]["internal"]
    assert internal["storageClasses"] == [item("kept", "kept", default, expand=False)]
    assert internal.get("defaultStorageClass") == ("kept" if default else None)


def test_upstream_a_kept_class_without_optional_fields():
    # INTERNAL "uses defaults for nil optional fields": no reclaimPolicy is Delete, no allowVolumeExpansion false
    sc = upstream_class("replicated", "replicated", "WaitForFirstConsumer", "Delete", False)
    del sc["reclaimPolicy"], sc["allowVolumeExpansion"]
    out, _ = run(only_classes(), sc)
    assert out.values["cloudProviderDvp"]["internal"]["storageClasses"] == [
        item("replicated", "replicated", expand=False)]


@pytest.mark.parametrize(("parent_name", "local"), [
    ("replicated", "replicated"), ("Excluded Fast", "excluded-fast"),  # INTERNAL "GetStorageClassName" entries
    ("-Xx__$()? -foo-", "xx--foo"), (".. YY fast SSD-foo.-", "yy-fast-ssd-foo"),
])
def test_upstream_parent_names_become_object_names(parent_name, local):
    assert hook.sc.dns1123(parent_name) == local

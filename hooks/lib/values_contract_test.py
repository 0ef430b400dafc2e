# Copyright 2026 The cloud-provider-dvp Authors
# SPDX-License-Identifier: Apache-2.0
"""What the hooks write under internal.* is what openapi/values.yaml declares (addon-operator validates the
values against it before Helm runs, so a mismatch would stop the module)."""

import json

import capdvp_webhook_certificate
import cni_configuration
import credentials
import disable_load_balancer
import discovery_data
import jsonschema
import legacy_cluster_configuration
import snapshot_webhook_certificate
import storage_classes
import validation_webhook_certificate
import yaml
from deckhouse import hook as sdk

from lib import testing as t
from lib.testing import migration_fixtures as f

SC = {"name": "replicated", "volumeBindingMode": "Immediate", "reclaimPolicy": "Delete",
      "allowVolumeExpansion": True, "isEnabled": True, "isDefault": True}
CASES = [
    (credentials, {"credentials": [t.secret("d8-cloud-provider-dvp", "d8-credentials", {
        "authScheme": "kubeconfig", "secret": f.KUBECONFIG_B64}, "cloud-provider.deckhouse.io/credentials")]}),
    (discovery_data, {"discoverer": [t.secret("kube-system", "d8-cloud-provider-discovery-data", {
        "discovery-data.json": json.dumps({"zones": ["a"], "layout": "Standard", "storageClasses": [SC]})})]}),
    (disable_load_balancer, {"disable_lb_configmap": [
        t.configmap("d8-cloud-provider-dvp", "dvp-cloud-controller-manager-disable-lb")]}),
    (cni_configuration, {"cni_configuration": [t.secret("kube-system", "d8-cni-configuration", {"cni": "cilium"})]}),
    (legacy_cluster_configuration, {"legacy_cluster_configuration": [f.pcc_secret()]}),
    # after the legacy projection, as in a module run: without cloudProviderDvp.provider it changes nothing
    (storage_classes, {}),
    (capdvp_webhook_certificate, {}),
    (validation_webhook_certificate, {}),
    (snapshot_webhook_certificate, {}),
]


def test_every_internal_value_matches_the_declared_schema():
    values = {"global": {"discovery": {"clusterDomain": "cluster.local"}}, "cloudProviderDvp": {"internal": {}}}
    for module, objects in CASES:
        out = sdk.testrun(module.main, binding_context=t.synchronization(module, t.snapshots(module, **objects)),
                          config_values={}, initial_values=values)
        values = t.apply(values, out.values_patches.data)
    internal = values["cloudProviderDvp"]["internal"]
    assert sorted(internal) == [
        "capdvpControllerManagerWebhookCert", "cniSecretData", "credentialSecrets", "defaultStorageClass",
        "disableLoadBalancer", "migration", "providerDiscoveryData", "snapshotWebhookCert", "storageClasses",
        "validationWebhookCert"]
    schema = yaml.safe_load(t.read("openapi/values.yaml"))["properties"]["internal"]
    jsonschema.Draft4Validator(schema).validate(internal)
    # Every declared internal value has a hook writing it.
    assert sorted(schema["properties"]) == sorted(internal)


def test_settings_projected_from_the_legacy_configuration_match_the_settings_schema():
    values = {"cloudProviderDvp": {"internal": {}}}
    module = legacy_cluster_configuration
    snaps = t.snapshots(module, legacy_cluster_configuration=[f.pcc_secret()])
    out = sdk.testrun(module.main, binding_context=t.synchronization(module, snaps), config_values={},
                      initial_values=values)
    settings = {k: x for k, x in out.values["cloudProviderDvp"].items() if k != "internal"}
    assert sorted(settings) == ["nodes", "provider"]
    jsonschema.Draft4Validator(yaml.safe_load(t.read("openapi/config-values.yaml"))).validate(settings)
    # The bundle's ModuleConfig settings too (ipAddresses included).
    from lib import migration
    ca_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxZ0Z1a1fSFm0+8YQjvN0nSPgZwPp9GdXyO5tMqWnXk ca"]
    for pcc in (f.PCC, f.PCC | {"sshCAKeys": ca_keys}):
        jsonschema.Draft4Validator(yaml.safe_load(t.read("openapi/config-values.yaml"))).validate(
            migration.settings(pcc))

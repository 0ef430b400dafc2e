{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}
{{- $ns := include "dvp.namespace" . }}
- name: d8.cloud-provider-dvp.configuration
  rules:
  - alert: D8CloudProviderDVPMigrationPending
    expr: max(d8_cloud_provider_dvp_migration_pending) > 0
    for: 1m
    labels:
      severity_level: "6"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        The module found the legacy provider configuration and stands in with it. Apply the migration
        resources (Secret `d8-migration-resources` in `{{ $ns }}`) to finish the migration.
      summary: The legacy DVP provider configuration has not been migrated yet.
  - alert: D8CloudProviderDVPCredentialsMissing
    expr: max(d8_cloud_provider_dvp_credentials_missing) > 0
    for: 5m
    labels:
      severity_level: "4"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        There is no Secret `{{ $ns }}/d8-credentials` (type `cloud-provider.deckhouse.io/credentials`) and no
        legacy kubeconfig standing in for it. The cloud-data-discoverer, cloud-controller-manager, capdvp and
        CSI controller wait for it (their pods report the missing Secret `dvp-credentials`); create it with the
        kubeconfig of the DVP ServiceAccount and they start.
      summary: The module has no DVP credentials yet.
  - alert: D8CloudProviderDVPDefaultStorageClassDrifted
    expr: max by (actual, expected) (d8_cloud_provider_dvp_default_storage_class_drifted) > 0
    for: 10m
    labels:
      severity_level: "7"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        The cluster default StorageClass is `{{ "{{ $labels.actual }}" }}`, the module expects
        `{{ "{{ $labels.expected }}" }}`. The module does not revert it; set the default in the configuration.
      summary: The default StorageClass was changed by hand.

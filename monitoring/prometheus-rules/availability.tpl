{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}
{{- $ns := include "dvp.namespace" . }}
{{- /* Every Deployment the current switches render: alert when none of its replicas is available, or when it is gone. */ -}}
{{- /* The third element says it reads the DVP credentials: while they are missing it cannot run, and only */ -}}
{{- /* D8CloudProviderDVPCredentialsMissing (the cause) fires. */ -}}
{{- $workloads := list (list "cloud-data-discoverer" "CloudDataDiscoverer" true) (list "validation-webhook" "ValidationWebhook" false) }}
{{- if include "dvp.ccm_enabled" . }}{{- $workloads = append $workloads (list "cloud-controller-manager" "CloudControllerManager" true) }}{{- end }}
{{- if include "dvp.nodes_enabled" . }}{{- $workloads = append $workloads (list "capdvp-controller-manager" "CAPDVPControllerManager" true) }}{{- end }}
{{- if include "dvp.storage_enabled" . }}{{- $workloads = append $workloads (list "csi-controller" "CSIController" true) }}{{- end }}
{{- if include "dvp.snapshot_controller_enabled" . }}
{{- $workloads = append $workloads (list "snapshot-controller" "SnapshotController" false) }}
{{- $workloads = append $workloads (list "snapshot-webhooks" "SnapshotWebhooks" false) }}
{{- end }}
{{- $waiting := include "dvp.unless_credentials_missing" . }}
- name: d8.cloud-provider-dvp.availability
  rules:
{{- range $w := $workloads }}
  - alert: D8CloudProviderDVP{{ index $w 1 }}Down
    expr: max(kube_deployment_status_replicas_available{namespace="{{ $ns }}", deployment="{{ index $w 0 }}"}) == 0{{ if index $w 2 }}{{ $waiting }}{{ end }}
    for: 5m
    labels:
      severity_level: "4"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        Check the pods: `kubectl -n {{ $ns }} get pods -l app={{ index $w 0 }}` and their events and logs.
      summary: No replica of {{ $ns }}/{{ index $w 0 }} is available.
  - alert: D8CloudProviderDVP{{ index $w 1 }}Absent
    expr: absent(kube_deployment_status_replicas_available{namespace="{{ $ns }}", deployment="{{ index $w 0 }}"}) == 1
    for: 15m
    labels:
      severity_level: "4"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        The module renders this Deployment but the cluster has none: check the module's Helm release.
      summary: Deployment {{ $ns }}/{{ index $w 0 }} is missing.
{{- end }}
{{- if include "dvp.storage_enabled" . }}
  - alert: D8CloudProviderDVPCSINodeUnavailable
    expr: max(kube_daemonset_status_number_unavailable{namespace="{{ $ns }}", daemonset="csi-node"}) > 0
    for: 10m
    labels:
      severity_level: "5"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        Volumes cannot be mounted on those nodes. Check `kubectl -n {{ $ns }} get pods -l app=csi-node -o wide`.
      summary: Some nodes run no ready DVP CSI node plugin.
{{- end }}

{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}
{{- $ns := include "dvp.namespace" . }}
{{- $waiting := include "dvp.unless_credentials_missing" . }}
- name: d8.cloud-provider-dvp.discovery
  rules:
  {{- /* A failed round stays failed until the next one, a discovery period (1h) later. The discoverer's */ -}}
  {{- /* PodMonitor scrapes it while it is unready too: a failed round is what makes it unready. */}}
  - alert: D8CloudProviderDVPCloudDiscoveryRoundFailed
    expr: max(cloud_data_discovery_round_error{namespace="{{ $ns }}"}) > 0{{ $waiting }}
    for: 10m
    labels:
      severity_level: "5"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        The last discovery round of `{{ $ns }}/cloud-data-discoverer` failed: the discovery data, the
        StorageClasses made from it and the cloud conditions may be stale. Its log and `/readyz` say why
        (`kubectl -n {{ $ns }} logs deploy/cloud-data-discoverer -c cloud-data-discoverer`);
        D8CloudProviderDVPCloudDiscoveryRequestFailed names the DVP reads that failed.
      summary: The DVP cloud data discovery fails.
  - alert: D8CloudProviderDVPCloudDiscoveryRequestFailed
    expr: max by (type) (cloud_data_discovery_cloud_request_error{namespace="{{ $ns }}"}) > 0{{ $waiting }}
    for: 10m
    labels:
      severity_level: "6"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        The discoverer's last `{{ "{{ $labels.type }}" }}` phase got no usable answer from DVP (unreachable,
        refused, or an internal error). Check that the DVP API is reachable from the cluster and that the
        discoverer's DVP ServiceAccount may read what it needs (see the module's security documentation).
      summary: The discoverer cannot read {{ "{{ $labels.type }}" }} from DVP.
  - alert: D8CloudProviderDVPCloudDataDiscovererNotReady
    {{- /* unready with no failed round reported: the first round never ended, or the metrics are not scraped */}}
    expr: max(kube_pod_status_ready{namespace="{{ $ns }}", pod=~"cloud-data-discoverer-.*", condition="false"}) > 0 unless on() max(cloud_data_discovery_round_error{namespace="{{ $ns }}"}) > 0{{ $waiting }}
    for: 10m
    labels:
      severity_level: "5"
      tier: cluster
    annotations:
      plk_markup_format: markdown
      plk_protocol_version: "1"
      description: |
        The discoverer is not ready, yet reports no failed round: its first round has not ended (every DVP
        read has a deadline, so it hangs elsewhere) or Prometheus cannot read its metrics. Check
        `kubectl -n {{ $ns }} logs deploy/cloud-data-discoverer -c cloud-data-discoverer`.
      summary: The DVP cloud-data-discoverer is not ready and says nothing about why.

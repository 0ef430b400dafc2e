{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_is_ha_to_value" (list . <yes> <no>) }} */ -}}
{{- /* <yes> when the module runs highly available: the module's highAvailability, else global.highAvailability, */ -}}
{{- /* else whether the control plane is highly available. */ -}}
{{- define "helm_lib_is_ha_to_value" }}
{{- $context := index . 0 -}}
{{- $yes := index . 1 -}}
{{- $no := index . 2 -}}
{{- $module := include "helm_lib_module_values" $context | fromYaml -}}
{{- if hasKey $module "highAvailability" -}}
{{- if $module.highAvailability -}}{{- $yes -}}{{- else -}}{{- $no -}}{{- end -}}
{{- else if hasKey $context.Values.global "highAvailability" -}}
{{- if $context.Values.global.highAvailability -}}{{- $yes -}}{{- else -}}{{- $no -}}{{- end -}}
{{- else -}}
{{- if ($context.Values.global.discovery | default dict).clusterControlPlaneIsHighlyAvailable -}}{{- $yes -}}{{- else -}}{{- $no -}}{{- end -}}
{{- end -}}
{{- end }}

{{- /* Usage: {{- if (include "helm_lib_ha_enabled" .) }} */ -}}
{{- /* "true" when highly available, empty otherwise. */ -}}
{{- define "helm_lib_ha_enabled" -}}
{{- include "helm_lib_is_ha_to_value" (list . "true" "") -}}
{{- end -}}

{{- /* Usage: {{ include "helm_lib_pod_anti_affinity_for_ha" (list . (dict "app" "test")) }} */ -}}
{{- /* When highly available: one replica per node (required pod anti-affinity on the given labels). */ -}}
{{- define "helm_lib_pod_anti_affinity_for_ha" }}
{{- $context := index . 0 -}}
{{- $labels := index . 1 -}}
{{- if (include "helm_lib_ha_enabled" $context) }}
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector:
        matchLabels:
{{- range $key, $value := $labels }}
          {{ $key }}: {{ $value | quote }}
{{- end }}
      topologyKey: kubernetes.io/hostname
{{- end }}
{{- end }}

{{- /* Usage: {{ include "helm_lib_deployment_on_master_strategy_and_replicas_for_ha" . }} */ -}}
{{- /* replicas + strategy for a component placed on masters: one per master when highly available. */ -}}
{{- define "helm_lib_deployment_on_master_strategy_and_replicas_for_ha" }}
{{- $discovery := .Values.global.discovery | default dict }}
{{- if (include "helm_lib_ha_enabled" .) }}
{{- $replicas := 2 }}
{{- if gt ($discovery.clusterMasterCount | default 0 | int) 0 }}
{{- $replicas = $discovery.clusterMasterCount | int }}
{{- end }}
replicas: {{ $replicas }}
strategy:
  type: RollingUpdate
  rollingUpdate:
    maxSurge: 0
    maxUnavailable: {{ if gt $replicas 2 }}2{{ else }}1{{ end }}
{{- else }}
replicas: 1
strategy:
  type: RollingUpdate
  rollingUpdate:
    maxSurge: 0
    maxUnavailable: 1
{{- end }}
{{- end }}

{{- /* Usage: {{ include "helm_lib_deployment_strategy_and_replicas_for_ha" . }} */ -}}
{{- /* replicas + strategy for a component placed anywhere: 2 when highly available, else 1. */ -}}
{{- define "helm_lib_deployment_strategy_and_replicas_for_ha" }}
replicas: {{ include "helm_lib_is_ha_to_value" (list . 2 1) }}
{{- if (include "helm_lib_ha_enabled" .) }}
strategy:
  type: RollingUpdate
  rollingUpdate:
    maxSurge: 0
    maxUnavailable: 1
{{- end }}
{{- end }}

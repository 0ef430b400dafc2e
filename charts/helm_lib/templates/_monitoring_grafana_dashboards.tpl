{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_grafana_dashboard_definitions" . }} */ -}}
{{- /* One GrafanaDashboardDefinition per monitoring/grafana-dashboards/<folder>/<name>.json, when the cluster */ -}}
{{- /* has the prometheus-crd module (it serves the kind). */ -}}
{{- define "helm_lib_grafana_dashboard_definitions" -}}
{{- if has "prometheus-crd" (.Values.global.enabledModules | default list) }}
{{- include "helm_lib_grafana_dashboard_definitions_recursion" (list . "monitoring/grafana-dashboards") }}
{{- end }}
{{- end -}}

{{- /* Usage: {{ include "helm_lib_grafana_dashboard_definitions_recursion" (list . <root dir> [current dir]) }} */ -}}
{{- /* Every *.json under <current dir> (default: <root dir>), at any depth. The folder is the title-cased */ -}}
{{- /* first directory under <root dir> ("kubernetes-cluster" -> "Kubernetes Cluster"; none: ""); the name is */ -}}
{{- /* d8-<chart>-<path under root dir, "/", ".", "_" and " " made "-">. */ -}}
{{- define "helm_lib_grafana_dashboard_definitions_recursion" -}}
{{- $context := index . 0 }}
{{- $root := index . 1 }}
{{- $current := $root }}
{{- if gt (len .) 2 }}{{- $current = index . 2 }}{{- end }}
{{- range $path, $_ := $context.Files.Glob (printf "%s/**.json" $current) }}
{{- $relative := trimPrefix (printf "%s/" $root) $path }}
{{- $parts := splitList "/" $relative }}
{{- $folder := "" }}
{{- if gt (len $parts) 1 }}{{- $folder = index $parts 0 | replace "-" " " | title }}{{- end }}
{{- $name := trimSuffix ".json" $relative | replace "/" "-" | replace "." "-" | replace "_" "-" | replace " " "-" }}
{{ include "helm_lib_single_dashboard" (list $context (printf "%s-%s" $context.Chart.Name $name) $folder ($context.Files.Get $path)) }}
{{- end }}
{{- end -}}

{{- /* Usage: {{ include "helm_lib_single_dashboard" (list . "dashboard-name" "folder" $definition) }} */ -}}
{{- define "helm_lib_single_dashboard" -}}
{{- $context := index . 0 }}
{{- $name := index . 1 }}
{{- $folder := index . 2 }}
{{- $definition := index . 3 }}
---
apiVersion: deckhouse.io/v1
kind: GrafanaDashboardDefinition
metadata:
  name: d8-{{ $name }}
  {{- include "helm_lib_module_labels" (list $context (dict "prometheus.deckhouse.io/grafana-dashboard" "")) | nindent 2 }}
spec:
  folder: {{ $folder | quote }}
  definition: |
    {{- $definition | nindent 4 }}
{{- end -}}

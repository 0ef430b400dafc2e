{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_prometheus_rules" (list . <namespace> [file list]) }} */ -}}
{{- /* The rule groups of monitoring/prometheus-rules/ as PrometheusRules in <namespace>, when the cluster has the */ -}}
{{- /* operator-prometheus-crd module (it serves the kind); with [file list], only those files (chart paths). */ -}}
{{- define "helm_lib_prometheus_rules" -}}
{{- $context := index . 0 }}
{{- $namespace := index . 1 }}
{{- $rootDir := "monitoring/prometheus-rules" }}
{{- $fileList := list }}
{{- if gt (len .) 2 }}{{- $fileList = index . 2 }}{{- end }}
{{- if has "operator-prometheus-crd" ($context.Values.global.enabledModules | default list) }}
{{- include "helm_lib_prometheus_rules_recursion" (list $context $namespace $rootDir $rootDir $fileList) }}
{{- end }}
{{- end -}}

{{- /* Usage: {{ include "helm_lib_prometheus_rules_recursion" (list . <namespace> <root dir> [current dir] [file list]) }} */ -}}
{{- /* One PrometheusRule per *.yaml or *.tpl file under <current dir> (default: <root dir>), at any depth, and in */ -}}
{{- /* [file list] when one is given. A file holds a list of rule groups; a .tpl file is rendered with tpl first. */ -}}
{{- /* __SCRAPE_INTERVAL__ (__SCRAPE_INTERVAL_X_2__, _X_3__, _X_4__) becomes global.discovery.prometheusScrapeInterval */ -}}
{{- /* (default 30) seconds (times 2, 3, 4); a rule annotated d8_ignore_on_update: "true" stays silent while */ -}}
{{- /* Deckhouse updates. The name is <chart>-<path under root dir, no extension, "/", ".", "_" and " " made "-">; */ -}}
{{- /* a file without groups makes none. */ -}}
{{- define "helm_lib_prometheus_rules_recursion" -}}
{{- $context := index . 0 }}
{{- $namespace := index . 1 }}
{{- $rootDir := index . 2 }}
{{- $currentDir := $rootDir }}
{{- if gt (len .) 3 }}{{- $currentDir = index . 3 }}{{- end }}
{{- $fileList := list }}
{{- if gt (len .) 4 }}{{- $fileList = index . 4 }}{{- end }}
{{- $interval := int ($context.Values.global.discovery.prometheusScrapeInterval | default 30) }}
{{- range $path, $_ := $context.Files.Glob (printf "%s/**.{yaml,tpl}" $currentDir) }}
{{- if or (not $fileList) (has $path $fileList) }}
{{- $definition := $context.Files.Get $path }}
{{- if hasSuffix ".tpl" $path }}{{- $definition = tpl $definition $context }}{{- end }}
{{- $definition = $definition | replace "__SCRAPE_INTERVAL__" (printf "%ds" $interval) | replace "__SCRAPE_INTERVAL_X_2__" (printf "%ds" (mul $interval 2)) | replace "__SCRAPE_INTERVAL_X_3__" (printf "%ds" (mul $interval 3)) | replace "__SCRAPE_INTERVAL_X_4__" (printf "%ds" (mul $interval 4)) }}
{{- $parsed := printf "Rules:\n%s" ($definition | nindent 2) | fromYaml }}
{{- if $parsed.Error }}{{- fail (printf "%s: %s" $path $parsed.Error) }}{{- end }}
{{- range $group := $parsed.Rules }}
{{- range $rule := $group.rules }}
{{- if and $rule.annotations (eq (get $rule.annotations "d8_ignore_on_update") "true") }}
{{- $_ := set $rule "expr" (printf "(%s) and ON() ((max(d8_is_updating) != 1) or ON() absent(d8_is_updating))" $rule.expr) }}
{{- end }}
{{- end }}
{{- end }}
{{- $name := regexReplaceAllLiteral "\\.(yaml|tpl)$" (trimPrefix (printf "%s/" $rootDir) $path) "" }}
{{- $name = $name | replace " " "-" | replace "." "-" | replace "_" "-" | replace "/" "-" }}
{{- if $parsed.Rules }}
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ printf "%s-%s" $context.Chart.Name $name }}
  namespace: {{ $namespace }}
  {{- include "helm_lib_module_labels" (list $context (dict "app" "prometheus" "prometheus" "main" "component" "rules")) | nindent 2 }}
spec:
  groups:
    {{- $parsed.Rules | toYaml | nindent 4 }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

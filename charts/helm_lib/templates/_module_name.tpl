{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_module_camelcase_name" . }} or (include "helm_lib_module_camelcase_name" "some-module") */ -}}
{{- /* The key of a module's values: "cloud-provider-dvp" -> "cloudProviderDvp". */ -}}
{{- define "helm_lib_module_camelcase_name" -}}
{{- $name := "" -}}
{{- if kindIs "string" . -}}{{- $name = trimAll "\"" . -}}{{- else -}}{{- $name = .Chart.Name -}}{{- end -}}
{{- $name | replace "-" "_" | camelcase | untitle -}}
{{- end -}}

{{- /* Usage: {{ include "helm_lib_module_values" . }} */ -}}
{{- /* The module's values as YAML (an empty map when absent). */ -}}
{{- define "helm_lib_module_values" -}}
{{- (index .Values (include "helm_lib_module_camelcase_name" .)) | default dict | toYaml -}}
{{- end -}}

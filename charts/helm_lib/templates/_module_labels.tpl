{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_module_labels" (list . (dict "app" "test")) }} */ -}}
{{- /* The labels block every object of a module carries: heritage, module, plus the extra labels given. */ -}}
{{- define "helm_lib_module_labels" }}
{{- $context := index . 0 }}
labels:
  heritage: deckhouse
  module: {{ $context.Chart.Name }}
{{- if ge (len .) 2 }}
{{- range $key, $value := index . 1 }}
  {{ $key }}: {{ $value | quote }}
{{- end }}
{{- end }}
{{- end }}

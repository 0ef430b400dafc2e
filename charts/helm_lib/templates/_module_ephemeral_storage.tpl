{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_module_ephemeral_storage_logs_with_extra" 10 }} */ -}}
{{- /* ephemeral-storage request: 50Mi for the container logs plus the extra mebibytes given. */ -}}
{{- define "helm_lib_module_ephemeral_storage_logs_with_extra" -}}
ephemeral-storage: {{ add . 50 }}Mi
{{- end }}

{{- /* Usage: {{ include "helm_lib_module_ephemeral_storage_only_logs" . }} */ -}}
{{- /* ephemeral-storage request: 50Mi for the container logs. */ -}}
{{- define "helm_lib_module_ephemeral_storage_only_logs" -}}
ephemeral-storage: 50Mi
{{- end }}

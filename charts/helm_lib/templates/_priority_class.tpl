{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_priority_class" (tuple . "cluster-low") }} */ -}}
{{- /* priorityClassName, one of the Deckhouse classes (fails on any other name so a typo cannot ship). */ -}}
{{- define "helm_lib_priority_class" }}
{{- $name := index . 1 }}
{{- $allowed := list "system-node-critical" "system-cluster-critical" "cluster-critical" "cluster-medium" "cluster-low" "production-high" "production-medium" "production-low" "staging" "develop" "standby" }}
{{- if not (has $name $allowed) }}
{{- fail (printf "unknown priority class %q" $name) }}
{{- end }}
priorityClassName: {{ $name }}
{{- end }}

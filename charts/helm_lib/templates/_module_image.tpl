{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_module_image" (list . "<imageName>" "<module-name>(optional)") }} */ -}}
{{- /* <registry base>@<digest>, from global.modulesImages only: rendering never needs the network. The module's */ -}}
{{- /* registry.base (an external module's own repository) overrides the global base. Fails when the digest is unknown. */ -}}
{{- define "helm_lib_module_image" }}
{{- $context := index . 0 }}
{{- $imageName := index . 1 | trimAll "\"" }}
{{- $rawModule := $context.Chart.Name }}
{{- if ge (len .) 3 }}{{- $rawModule = index . 2 }}{{- end }}
{{- $module := include "helm_lib_module_camelcase_name" $rawModule }}
{{- $digest := index ((index $context.Values.global.modulesImages.digests $module) | default dict) $imageName }}
{{- if not $digest }}
{{- fail (printf "Image %s.%s has no digest" $module $imageName) }}
{{- end }}
{{- $base := $context.Values.global.modulesImages.registry.base }}
{{- $moduleValues := (index $context.Values $module) | default dict }}
{{- if and $moduleValues.registry $moduleValues.registry.base }}
{{- $base = $moduleValues.registry.base }}
{{- end }}
{{- printf "%s@%s" (trimAll "/" $base) $digest }}
{{- end }}

{{- /* Usage: {{ include "helm_lib_module_common_image" (list . "<imageName>") }} */ -}}
{{- /* An image of the Deckhouse "common" set (kube-rbac-proxy, CSI sidecars): <registry base>@<digest>. */ -}}
{{- define "helm_lib_module_common_image" }}
{{- $context := index . 0 }}
{{- $imageName := index . 1 | trimAll "\"" }}
{{- $digest := index ($context.Values.global.modulesImages.digests.common | default dict) $imageName }}
{{- if not $digest }}
{{- fail (printf "Image %s.%s has no digest" "common" $imageName) }}
{{- end }}
{{- printf "%s@%s" (trimAll "/" $context.Values.global.modulesImages.registry.base) $digest }}
{{- end }}

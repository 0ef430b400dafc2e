{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_node_selector" (tuple . "system") }} ("system" | "master" | "monitoring" | "frontend") */ -}}
{{- /* nodeSelector for the strategy: the module's own nodeSelector value wins, then dedicated Deckhouse roles */ -}}
{{- /* found by discovery; "master" selects control-plane nodes. Nothing when no such nodes are known. */ -}}
{{- define "helm_lib_node_selector" }}
{{- $context := index . 0 }}
{{- $strategy := index . 1 }}
{{- if not (has $strategy (list "frontend" "monitoring" "system" "master")) }}
{{- fail (printf "unknown strategy %q" $strategy) }}
{{- end }}
{{- $module := include "helm_lib_module_values" $context | fromYaml }}
{{- if ge (len .) 3 }}{{- $module = index . 2 }}{{- end }}
{{- $discovery := $context.Values.global.discovery | default dict }}
{{- $byRole := $discovery.d8SpecificNodeCountByRole | default dict }}
{{- $chartKey := include "helm_lib_module_camelcase_name" $context }}
{{- if eq $strategy "master" }}
{{- if gt ($discovery.clusterMasterCount | default 0 | int) 0 }}
nodeSelector:
  node-role.kubernetes.io/control-plane: ""
{{- else if gt (index $byRole "master" | default 0 | int) 0 }}
nodeSelector:
  node-role.deckhouse.io/control-plane: ""
{{- else if gt (index $byRole "system" | default 0 | int) 0 }}
nodeSelector:
  node-role.deckhouse.io/system: ""
{{- end }}
{{- else if $module.nodeSelector }}
nodeSelector: {{ $module.nodeSelector | toJson }}
{{- else if gt (index $byRole $chartKey | default 0 | int) 0 }}
nodeSelector:
  node-role.deckhouse.io/{{ $context.Chart.Name }}: ""
{{- else if gt (index $byRole $strategy | default 0 | int) 0 }}
nodeSelector:
  node-role.deckhouse.io/{{ $strategy }}: ""
{{- else if and (eq $strategy "monitoring") (gt (index $byRole "system" | default 0 | int) 0) }}
nodeSelector:
  node-role.deckhouse.io/system: ""
{{- end }}
{{- end }}

{{- /* Usage: {{ include "helm_lib_tolerations" (tuple . "any-node" "with-uninitialized" "without-storage-problems") }} */ -}}
{{- /* Base strategy: "any-node" | "system" | "monitoring" | "frontend" | "wildcard" | "custom"; then "with-X" adds */ -}}
{{- /* and "without-X" removes an additional set (uninitialized, node-problems, storage-problems, no-csi, */ -}}
{{- /* cloud-provider-uninitialized). Every base except wildcard/custom includes storage-problems. */ -}}
{{- define "helm_lib_tolerations" }}
{{- $context := index . 0 }}
{{- $strategy := index . 1 }}
{{- if not (has $strategy (list "custom" "frontend" "monitoring" "system" "any-node" "wildcard")) }}
{{- fail (printf "unknown strategy %q" $strategy) }}
{{- end }}
{{- $extra := list }}
{{- if ne $strategy "custom" }}{{- $extra = list "storage-problems" }}{{- end }}
{{- range $s := slice . 2 }}
{{- if hasPrefix "with-" $s }}{{- $extra = append $extra (trimPrefix "with-" $s) }}{{- end }}
{{- if hasPrefix "without-" $s }}{{- $extra = without $extra (trimPrefix "without-" $s) }}{{- end }}
{{- end }}
{{- $module := include "helm_lib_module_values" $context | fromYaml }}
tolerations:
{{- if eq $strategy "wildcard" }}
- operator: Exists
{{- else }}
{{- if eq $strategy "any-node" }}
{{- include "_helm_lib_any_node_tolerations" $context }}
{{- else if $module.tolerations }}
{{- $module.tolerations | toYaml | nindent 0 }}
{{- else if has $strategy (list "system" "monitoring" "frontend") }}
- key: dedicated.deckhouse.io
  operator: Equal
  value: {{ $context.Chart.Name | quote }}
- key: dedicated.deckhouse.io
  operator: Equal
  value: {{ $strategy | quote }}
{{- end }}
{{- range $extra }}
{{- include (printf "_helm_lib_additional_tolerations_%s" (. | replace "-" "_")) $context }}
{{- end }}
{{- end }}
{{- end }}

{{- define "_helm_lib_any_node_tolerations" }}
- key: node-role.kubernetes.io/master
- key: node-role.kubernetes.io/control-plane
- key: dedicated.deckhouse.io
  operator: Exists
- key: dedicated
  operator: Exists
- key: DeletionCandidateOfClusterAutoscaler
- key: ToBeDeletedByClusterAutoscaler
{{- range $key := ((.Values.global.modules | default dict).placement | default dict).customTolerationKeys | default list }}
- key: {{ $key | quote }}
  operator: Exists
{{- end }}
{{- end }}

{{- define "_helm_lib_additional_tolerations_uninitialized" }}
- key: node.deckhouse.io/bashible-uninitialized
  operator: Exists
  effect: NoSchedule
- key: node.deckhouse.io/uninitialized
  operator: Exists
  effect: NoSchedule
{{- include "_helm_lib_additional_tolerations_no_csi" . }}
{{- include "_helm_lib_additional_tolerations_node_problems" . }}
{{- end }}

{{- define "_helm_lib_additional_tolerations_node_problems" }}
- key: node.kubernetes.io/not-ready
- key: node.kubernetes.io/out-of-disk
- key: node.kubernetes.io/memory-pressure
- key: node.kubernetes.io/disk-pressure
- key: node.kubernetes.io/pid-pressure
- key: node.kubernetes.io/unreachable
- key: node.kubernetes.io/network-unavailable
{{- end }}

{{- define "_helm_lib_additional_tolerations_storage_problems" }}
- key: drbd.linbit.com/lost-quorum
- key: drbd.linbit.com/force-io-error
- key: drbd.linbit.com/ignore-fail-over
{{- end }}

{{- define "_helm_lib_additional_tolerations_no_csi" }}
- key: ToBeDeletedTaint
  operator: Exists
- key: node.deckhouse.io/csi-not-bootstrapped
  operator: Exists
  effect: NoSchedule
{{- end }}

{{- /* Until the cluster is bootstrapped the CCM itself may not have initialised the nodes yet. */ -}}
{{- define "_helm_lib_additional_tolerations_cloud_provider_uninitialized" }}
{{- if not .Values.global.clusterIsBootstrapped }}
- key: node.cloudprovider.kubernetes.io/uninitialized
  operator: Exists
{{- end }}
{{- end }}

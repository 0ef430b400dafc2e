{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Usage: {{ include "helm_lib_kube_rbac_proxy_ca_certificate" (list . "d8-namespace") }} */ -}}
{{- /* ConfigMap kube-rbac-proxy-ca.crt: the CA the kube-rbac-proxy sidecars use to verify their clients. */ -}}
{{- define "helm_lib_kube_rbac_proxy_ca_certificate" -}}
{{- $context := index . 0 }}
{{- $namespace := index . 1 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-rbac-proxy-ca.crt
  namespace: {{ $namespace }}
  annotations:
    kubernetes.io/description: Contains a CA bundle that can be used to verify the kube-rbac-proxy clients.
  {{- include "helm_lib_module_labels" (list $context) | nindent 2 }}
data:
  ca.crt: {{ $context.Values.global.internal.modules.kubeRBACProxyCA.cert | quote }}
{{- end }}

{{- /* Usage: {{ include "helm_lib_container_kube_rbac_proxy_resources" . }} */ -}}
{{- /* Requests of a kube-rbac-proxy sidecar (also its VPA minimum). */ -}}
{{- define "helm_lib_container_kube_rbac_proxy_resources" }}
cpu: 10m
memory: 25Mi
{{- end }}

{{- /* Usage: {{ include "helm_lib_vpa_kube_rbac_proxy_resources" . }} */ -}}
{{- /* The VPA containerPolicy of a kube-rbac-proxy sidecar. */ -}}
{{- define "helm_lib_vpa_kube_rbac_proxy_resources" }}
- containerName: kube-rbac-proxy
  minAllowed:
    {{- include "helm_lib_container_kube_rbac_proxy_resources" . | nindent 4 }}
  maxAllowed:
    cpu: 25m
    memory: 64Mi
{{- end }}

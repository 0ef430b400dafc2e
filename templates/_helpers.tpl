{{- /* Copyright 2026 The cloud-provider-dvp Authors */ -}}
{{- /* SPDX-License-Identifier: Apache-2.0 */ -}}

{{- /* Module-local helpers. Anything lib-helm does not define lives here, so the real lib-helm can replace */ -}}
{{- /* charts/helm_lib without losing a helper. Switches return "true" or "" (usable in `if`). */ -}}

{{- define "dvp.namespace" -}}d8-cloud-provider-dvp{{- end -}}

{{- /* A subsystem's switch has two spellings: upstream's `enabled` and our `disabled`; the schema refuses both */ -}}
{{- /* given and contradicting. Unset is on. The one place the two combine. Usage: include "dvp.switch_on" (list . "nodes") */ -}}
{{- define "dvp.switch_on" -}}
{{- $s := dig (index . 1) dict (index . 0).Values.cloudProviderDvp | default dict -}}
{{- if and (not (dig "disabled" false $s)) (dig "enabled" true $s) -}}true{{- end -}}
{{- end -}}

{{- define "dvp.nodes_enabled" -}}
{{- include "dvp.switch_on" (list . "nodes") -}}
{{- end -}}

{{- define "dvp.ccm_enabled" -}}
{{- if and (include "dvp.nodes_enabled" .) (not (dig "ccm" "disabled" false .Values.cloudProviderDvp)) -}}true{{- end -}}
{{- end -}}

{{- define "dvp.storage_enabled" -}}
{{- include "dvp.switch_on" (list . "storage") -}}
{{- end -}}

{{- /* Snapshots need the CSI driver; off when storage is off or snapshots are disabled. */ -}}
{{- define "dvp.snapshots_enabled" -}}
{{- if and (include "dvp.storage_enabled" .) (not (dig "storage" "snapshots" "disabled" false .Values.cloudProviderDvp)) -}}true{{- end -}}
{{- end -}}

{{- /* Our snapshot-controller steps aside when the Deckhouse snapshot-controller module runs one already. */ -}}
{{- define "dvp.snapshot_controller_enabled" -}}
{{- if and (include "dvp.snapshots_enabled" .) (not (has "snapshot-controller" (.Values.global.enabledModules | default list))) -}}true{{- end -}}
{{- end -}}

{{- define "dvp.vpa_enabled" -}}
{{- if .Capabilities.APIVersions.Has "autoscaling.k8s.io/v1/VerticalPodAutoscaler" -}}true{{- end -}}
{{- end -}}

{{- define "dvp.monitoring_enabled" -}}
{{- if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1/PrometheusRule" -}}true{{- end -}}
{{- end -}}

{{- /* Whether the credentials hook found d8-credentials (or the legacy kubeconfig standing in for it). */ -}}
{{- define "dvp.credentials_present" -}}
{{- if dig "d8-credentials" "secret" "" (.Values.cloudProviderDvp.internal.credentialSecrets | default dict) -}}true{{- end -}}
{{- end -}}

{{- /* Appended (leading space included) to the expr of an alert about something that reads the DVP credentials: */ -}}
{{- /* while they are missing it cannot run, and only D8CloudProviderDVPCredentialsMissing (the cause) fires. */ -}}
{{- /* Used by monitoring/prometheus-rules/. */ -}}
{{- define "dvp.unless_credentials_missing" }} unless on() max(d8_cloud_provider_dvp_credentials_missing) > 0{{ end -}}

{{- define "dvp.log_level" -}}
{{- .Values.cloudProviderDvp.logLevel | default "Info" -}}
{{- end -}}

{{- /* Usage: include "dvp.credentials_envs" "dvp-credentials" */ -}}
{{- /* The DVP connection every Python component reads, taken from a credentials Secret of the module. */ -}}
{{- define "dvp.credentials_envs" }}
- name: DVP_KUBERNETES_CONFIG_BASE64
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: kubernetesConfigBase64
- name: DVP_NAMESPACE
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: namespace
- name: CLUSTER_UUID
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: clusterUUID
{{- end }}

{{- /* Usage: include "dvp.http_probes" (list <port name> <scheme> <liveness path> <readiness path>) */ -}}
{{- define "dvp.http_probes" }}
{{- $port := index . 0 }}{{- $scheme := index . 1 }}
livenessProbe:
  httpGet:
    path: {{ index . 2 }}
    port: {{ $port }}
    scheme: {{ $scheme }}
  initialDelaySeconds: 10
  periodSeconds: 20
  timeoutSeconds: 5
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: {{ index . 3 }}
    port: {{ $port }}
    scheme: {{ $scheme }}
  initialDelaySeconds: 5
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 3
{{- end }}

{{- /* Usage: include "dvp.kube_rbac_proxy_container" (list . (dict "upstream" "http://127.0.0.1:8081/" "name" "<deployment>" "port" 8080)) */ -}}
{{- /* The kube-rbac-proxy sidecar: serves https-metrics on the port given, lets the probe paths (excludePaths, */ -}}
{{- /* default /healthz and /readyz) through unauthenticated for the kubelet, and authorises everything else as */ -}}
{{- /* get deployments/prometheus-metrics. */ -}}
{{- define "dvp.kube_rbac_proxy_container" }}
{{- $context := index . 0 }}
{{- $opts := index . 1 }}
- name: kube-rbac-proxy
  {{- include "helm_lib_module_container_security_context_read_only_root_filesystem_capabilities_drop_all_pss_restricted" $context | nindent 2 }}
  image: {{ include "helm_lib_module_common_image" (list $context "kubeRbacProxy") }}
  args:
  - "--secure-listen-address=$(KUBE_RBAC_PROXY_LISTEN_ADDRESS):{{ $opts.port }}"
  - "--v=2"
  - "--logtostderr=true"
  - "--stale-cache-interval=1h30m"
  - "--livez-path=/livez"
  env:
  - name: KUBE_RBAC_PROXY_LISTEN_ADDRESS
    valueFrom:
      fieldRef:
        fieldPath: status.podIP
  - name: KUBE_RBAC_PROXY_CONFIG
    value: |
      excludePaths:
      {{- range ($opts.excludePaths | default (list "/healthz" "/readyz")) }}
      - {{ . }}
      {{- end }}
      upstreams:
      - upstream: {{ $opts.upstream }}
        path: /
        authorization:
          resourceAttributes:
            namespace: {{ include "dvp.namespace" $context }}
            apiGroup: apps
            apiVersion: v1
            resource: deployments
            subresource: prometheus-metrics
            name: {{ $opts.name }}
  ports:
  - containerPort: {{ $opts.port }}
    name: https-metrics
  livenessProbe:
    httpGet:
      path: /livez
      port: https-metrics
      scheme: HTTPS
    periodSeconds: 20
  readinessProbe:
    httpGet:
      path: /livez
      port: https-metrics
      scheme: HTTPS
    periodSeconds: 10
  volumeMounts:
  - name: kube-rbac-proxy-ca
    mountPath: /etc/kube-rbac-proxy
    readOnly: true
  resources:
    requests:
      {{- include "helm_lib_module_ephemeral_storage_only_logs" $context | nindent 6 }}
      {{- include "helm_lib_container_kube_rbac_proxy_resources" $context | nindent 6 }}
{{- end }}

{{- /* Usage: include "dvp.pod_monitor" (list . <app> [<ready pods only: bool>]) */ -}}
{{- /* Prometheus (main) scrapes the app's https-metrics port, the kube-rbac-proxy sidecar, with its own token; */ -}}
{{- /* the job label is the app. */ -}}
{{- define "dvp.pod_monitor" }}
{{- $context := index . 0 }}
{{- $app := index . 1 }}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata:
  name: {{ $app }}
  namespace: d8-monitoring
  {{- include "helm_lib_module_labels" (list $context (dict "prometheus" "main")) | nindent 2 }}
spec:
  jobLabel: app
  namespaceSelector:
    matchNames:
    - {{ include "dvp.namespace" $context }}
  selector:
    matchLabels:
      app: {{ $app }}
  podMetricsEndpoints:
  - port: https-metrics
    scheme: https
    path: /metrics
    bearerTokenSecret:
      name: prometheus-token
      key: token
    tlsConfig:
      insecureSkipVerify: true
    relabelings:
    - targetLabel: tier
      replacement: cluster
    {{- if and (gt (len .) 2) (index . 2) }}
    - sourceLabels: [__meta_kubernetes_pod_ready]
      regex: "true"
      action: keep
    {{- end }}
{{- end }}

{{- /* Usage: include "dvp.rbac_proxy_binding" (list . <component> <service account> <app>) */ -}}
{{- /* kube-rbac-proxy checks the scraper's token and access (TokenReview, SubjectAccessReview) through */ -}}
{{- /* d8:rbac-proxy. */ -}}
{{- define "dvp.rbac_proxy_binding" }}
{{- $context := index . 0 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: d8:cloud-provider-dvp:{{ index . 1 }}:rbac-proxy
  {{- include "helm_lib_module_labels" (list $context (dict "app" (index . 3))) | nindent 2 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: d8:rbac-proxy
subjects:
- kind: ServiceAccount
  name: {{ index . 2 }}
  namespace: {{ include "dvp.namespace" $context }}
{{- end }}

{{- define "dvp.kube_rbac_proxy_volume" }}
- name: kube-rbac-proxy-ca
  configMap:
    defaultMode: 420
    name: kube-rbac-proxy-ca.crt
{{- end }}

{{- /* Usage: include "dvp.vpa" (list . <kind> <name> <containers: list of (dict "name" "cpu" (list min max) "memory" (list min max))> [<extra containerPolicies YAML>]) */ -}}
{{- define "dvp.vpa" }}
{{- $context := index . 0 }}
{{- if include "dvp.vpa_enabled" $context }}
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata:
  name: {{ index . 2 }}
  namespace: {{ include "dvp.namespace" $context }}
  {{- include "helm_lib_module_labels" (list $context (dict "app" (index . 2))) | nindent 2 }}
spec:
  targetRef:
    apiVersion: apps/v1
    kind: {{ index . 1 }}
    name: {{ index . 2 }}
  updatePolicy:
    updateMode: InPlaceOrRecreate
  resourcePolicy:
    containerPolicies:
    {{- range $c := index . 3 }}
    - containerName: {{ $c.name }}
      minAllowed:
        cpu: {{ index $c.cpu 0 }}
        memory: {{ index $c.memory 0 }}
      maxAllowed:
        cpu: {{ index $c.cpu 1 }}
        memory: {{ index $c.memory 1 }}
    {{- end }}
    {{- if ge (len .) 5 }}
    {{- index . 4 | nindent 4 }}
    {{- end }}
{{- end }}
{{- end }}

{{- /* Usage: include "dvp.pdb" (list . <name> <maxUnavailable>) */ -}}
{{- define "dvp.pdb" }}
{{- $context := index . 0 }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ index . 1 }}
  namespace: {{ include "dvp.namespace" $context }}
  {{- include "helm_lib_module_labels" (list $context (dict "app" (index . 1))) | nindent 2 }}
spec:
  maxUnavailable: {{ index . 2 }}
  selector:
    matchLabels:
      app: {{ index . 1 }}
{{- end }}

{{- /* Usage: include "dvp.tls_secret" (list . <name> <cert values map> <values path for the error>) */ -}}
{{- define "dvp.tls_secret" }}
{{- $context := index . 0 }}
{{- $cert := index . 2 | default dict }}
{{- $path := index . 3 }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ index . 1 }}
  namespace: {{ include "dvp.namespace" $context }}
  {{- include "helm_lib_module_labels" (list $context (dict "app" (index . 1))) | nindent 2 }}
type: kubernetes.io/tls
data:
  ca.crt: {{ required (printf "Secret %s: %s.ca is required" (index . 1) $path) $cert.ca | b64enc }}
  tls.crt: {{ required (printf "Secret %s: %s.crt is required" (index . 1) $path) $cert.crt | b64enc }}
  tls.key: {{ required (printf "Secret %s: %s.key is required" (index . 1) $path) $cert.key | b64enc }}
{{- end }}

{{- /* Usage: include "dvp.webhook_server" (list . (dict "name" <deployment> "mode" validation|snapshot "tlsSecret" <secret> "priority" <class> "cert" <cert values>)) */ -}}
{{- /* One dvp_webhooks server (Deployment, Service, VPA, PDB); the mode selects the admission handlers it serves. */ -}}
{{- define "dvp.webhook_server" }}
{{- $context := index . 0 }}
{{- $o := index . 1 }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $o.name }}
  namespace: {{ include "dvp.namespace" $context }}
  {{- include "helm_lib_module_labels" (list $context (dict "app" $o.name)) | nindent 2 }}
spec:
  {{- include "helm_lib_deployment_on_master_strategy_and_replicas_for_ha" $context | nindent 2 }}
  revisionHistoryLimit: 2
  selector:
    matchLabels:
      app: {{ $o.name }}
  template:
    metadata:
      labels:
        app: {{ $o.name }}
      annotations:
        checksum/tls: {{ $o.cert | toJson | sha256sum }}
    spec:
      {{- include "helm_lib_priority_class" (tuple $context "system-cluster-critical") | nindent 6 }}
      {{- include "helm_lib_node_selector" (tuple $context "master") | nindent 6 }}
      {{- include "helm_lib_tolerations" (tuple $context "any-node" "with-uninitialized" "with-cloud-provider-uninitialized") | nindent 6 }}
      {{- include "helm_lib_pod_anti_affinity_for_ha" (list $context (dict "app" $o.name)) | nindent 6 }}
      {{- include "helm_lib_module_pod_security_context_run_as_user_deckhouse" $context | nindent 6 }}
      serviceAccountName: {{ $o.name }}
      automountServiceAccountToken: true
      imagePullSecrets:
      - name: deckhouse-registry
      containers:
      - name: webhooks
        {{- include "helm_lib_module_container_security_context_read_only_root_filesystem_capabilities_drop_all_pss_restricted" $context | nindent 8 }}
        image: {{ include "helm_lib_module_image" (list $context "webhooks") }}
        command: ["python3", "-m", "dvp_webhooks", "{{ $o.mode }}"]
        args:
        - --listen-address=:8443
        - --tls-cert-file=/etc/webhook/tls/tls.crt
        - --tls-key-file=/etc/webhook/tls/tls.key
        # Metrics stay on loopback; kube-rbac-proxy publishes them on 8080.
        - --metrics-address=127.0.0.1:8081
        - --log-level={{ include "dvp.log_level" $context }}
        {{- with (dig "clusterConfiguration" "cloud" "prefix" "" $context.Values.global) }}
        - --cluster-prefix={{ . }}
        {{- end }}
        ports:
        - containerPort: 8443
          name: https
        {{- include "dvp.http_probes" (list "https" "HTTPS" "/healthz" "/readyz") | nindent 8 }}
        volumeMounts:
        - name: tls
          mountPath: /etc/webhook/tls
          readOnly: true
        - name: tmp
          mountPath: /tmp
        resources:
          requests:
            cpu: 10m
            memory: 48Mi
            {{- include "helm_lib_module_ephemeral_storage_logs_with_extra" 10 | nindent 12 }}
      {{- include "dvp.kube_rbac_proxy_container" (list $context (dict "upstream" "http://127.0.0.1:8081/" "name" $o.name "port" 8080)) | nindent 6 }}
      volumes:
      - name: tls
        secret:
          secretName: {{ $o.tlsSecret }}
      - name: tmp
        emptyDir: {}
      {{- include "dvp.kube_rbac_proxy_volume" $context | nindent 6 }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $o.name }}
  namespace: {{ include "dvp.namespace" $context }}
  {{- include "helm_lib_module_labels" (list $context (dict "app" $o.name)) | nindent 2 }}
spec:
  type: ClusterIP
  selector:
    app: {{ $o.name }}
  ports:
  - name: https
    port: 443
    protocol: TCP
    targetPort: https
{{- include "dvp.vpa" (list $context "Deployment" $o.name (list (dict "name" "webhooks" "cpu" (list "10m" "200m") "memory" (list "48Mi" "192Mi"))) (include "helm_lib_vpa_kube_rbac_proxy_resources" $context)) }}
{{- include "dvp.pdb" (list $context $o.name 1) }}
{{- include "dvp.webhook_network_policy" (list $context $o.name) }}
{{- end }}

{{- /* Usage: include "dvp.webhook_network_policy" (list . <app>) */ -}}
{{- /* Only node-level sources (the API server, the kubelet's probes) may reach a webhook port; no pod may. */ -}}
{{- /* Pods of d8-monitoring may reach the metrics port. */ -}}
{{- /* Cilium (Deckhouse's CNI) names the API server as an entity; a plain NetworkPolicy cannot (the API server */ -}}
{{- /* runs in the host network, and Cilium does not match node addresses with ipBlock), so nothing is */ -}}
{{- /* rendered on clusters without CiliumNetworkPolicy rather than a policy that would cut the API server off. */ -}}
{{- define "dvp.webhook_network_policy" }}
{{- $context := index . 0 }}
{{- $app := index . 1 }}
{{- if $context.Capabilities.APIVersions.Has "cilium.io/v2/CiliumNetworkPolicy" }}
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata:
  name: {{ $app }}
  namespace: {{ include "dvp.namespace" $context }}
  {{- include "helm_lib_module_labels" (list $context (dict "app" $app)) | nindent 2 }}
spec:
  endpointSelector:
    matchLabels:
      app: {{ $app }}
  ingress:
  - fromEntities: [kube-apiserver, host, remote-node]
    toPorts:
    - ports:
      - port: "8443"
        protocol: TCP
  # Prometheus reads the metrics port (kube-rbac-proxy: its token is checked there), and only that port.
  - fromEndpoints:
    - matchLabels:
        k8s:io.kubernetes.pod.namespace: d8-monitoring
    toPorts:
    - ports:
      - port: "8080"
        protocol: TCP
{{- end }}
{{- end }}

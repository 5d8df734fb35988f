{{/*
Shared helpers. Every component (gateway, auth, tournament, game-engine, ads, notification) is
rendered by the same named templates below; the files in templates/<component>/ only say which
of them a component gets. A component is passed around as a dict:

  (dict "root" $ "key" "gameEngine")

where "key" is the component's block in values.yaml. "underdog.init" adds the derived fields.
*/}}

{{- define "underdog.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource name prefix: the release name, or <release>-<chart> when the release name lacks it. */}}
{{- define "underdog.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "underdog.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The facts about each component that come from its code (components.yaml): name, port, the
infrastructure it uses, the components it calls, the topics it consumes. "underdog.topics" is the
topic catalog (topics.yaml, checked against packages/platform/src/topics.ts).
*/}}
{{- define "underdog.componentFacts" -}}
{{- .root.Files.Get "components.yaml" }}
{{- end }}

{{- define "underdog.topics" -}}
{{- .Files.Get "topics.yaml" }}
{{- end }}

{{/*
Completes a component dict in place: .name, .port, .uses, .calls, .static, .maxReplicas (0: no
limit), .fullname (resource name) and .values, the component's block merged over
componentDefaults. Safe to call more than once.
*/}}
{{- define "underdog.init" -}}
{{- if not (hasKey . "values") }}
{{- $facts := index (include "underdog.componentFacts" . | fromYaml).components .key }}
{{- if not $facts }}
{{- fail (printf "underdog: unknown component %q" .key) }}
{{- end }}
{{- $own := index .root.Values .key | default dict }}
{{- $values := mergeOverwrite (deepCopy .root.Values.componentDefaults) (deepCopy $own) }}
{{- $maxReplicas := 0 }}
{{- if $facts.consumes }}
{{- range (include "underdog.topics" .root | fromYaml).topics }}
{{- if and (has .name $facts.consumes) (or (eq $maxReplicas 0) (lt (int .partitions) $maxReplicas)) }}
{{- $maxReplicas = int .partitions }}
{{- end }}
{{- end }}
{{- end }}
{{- $_ := set . "name" $facts.name }}
{{- $_ := set . "port" (int $facts.port) }}
{{- $_ := set . "uses" ($facts.uses | default list) }}
{{- $_ := set . "calls" ($facts.calls | default list) }}
{{- $_ := set . "consumes" ($facts.consumes | default list) }}
{{- $_ := set . "static" ($facts.static | default false) }}
{{- $_ := set . "maxReplicas" $maxReplicas }}
{{- $_ := set . "fullname" (printf "%s-%s" (include "underdog.fullname" .root) $facts.name | trunc 63 | trimSuffix "-") }}
{{- $_ := set . "values" $values }}
{{- end }}
{{- end }}

{{- define "underdog.labels" -}}
helm.sh/chart: {{ include "underdog.chart" . }}
app.kubernetes.io/name: {{ include "underdog.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: underdog
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Labels of a component's resources. Argument: a component dict. */}}
{{- define "underdog.componentLabels" -}}
{{- include "underdog.init" . }}
{{- include "underdog.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* Selector labels: stable across upgrades, so never the version. Argument: a component dict. */}}
{{- define "underdog.selectorLabels" -}}
{{- include "underdog.init" . -}}
app.kubernetes.io/name: {{ include "underdog.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{- define "underdog.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "underdog.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* registry/repository:tag[@digest] of a component's image. Argument: a component dict. */}}
{{- define "underdog.image" -}}
{{- include "underdog.init" . }}
{{- $global := .root.Values.global.image }}
{{- $image := .values.image | default dict }}
{{- $repository := $image.repository }}
{{- with $global.registry }}
{{- $repository = printf "%s/%s" (trimSuffix "/" .) $repository }}
{{- end }}
{{- $tag := $image.tag | default $global.tag | default .root.Chart.AppVersion | toString }}
{{- if $image.digest }}
{{- printf "%s:%s@%s" $repository $tag $image.digest }}
{{- else }}
{{- printf "%s:%s" $repository $tag }}
{{- end }}
{{- end }}

{{/* Name of the Secret holding the admin password. */}}
{{- define "underdog.adminSecretName" -}}
{{- .Values.auth.admin.existingSecret | default (printf "%s-admin" (include "underdog.fullname" .)) }}
{{- end }}

{{/* Name of the Secret holding the gateway's FAIR_PLAY_SECRET (fair-play hashes). */}}
{{- define "underdog.fairPlaySecretName" -}}
{{- .Values.gateway.fairPlay.existingSecret | default (printf "%s-fair-play" (include "underdog.fullname" .)) }}
{{- end }}

{{/* Name of the Secret holding SERVICE_TOKEN_SECRET (the key of internal calls). */}}
{{- define "underdog.serviceTokenSecretName" -}}
{{- .Values.serviceToken.existingSecret | default (printf "%s-service-token" (include "underdog.fullname" .)) }}
{{- end }}

{{/*
Plain (non-secret) environment of a component: the variables its code reads, as ConfigMap data.
URLs of infrastructure configured through an existingSecret are left out here and come from the
Secret in "underdog.secretEnv".
*/}}
{{- define "underdog.configEnv" -}}
{{- include "underdog.init" . }}
{{- $root := .root }}
{{- $v := .values }}
{{- $env := dict
  "PORT" (.port | toString)
  "HOST" "0.0.0.0"
  "LOG_LEVEL" $v.logLevel
  "NODE_ENV" "production"
}}
{{- /* Prometheus scrapes its own port; the public one answers /metrics to loopback only. */}}
{{- $_ := set $env "METRICS_PORT" ($root.Values.metrics.port | toString) }}
{{- if has "kafka" .uses }}
{{- $_ := set $env "KAFKA_BROKERS" (join "," $root.Values.kafka.brokers) }}
{{- end }}
{{- if and (has "redis" .uses) (not $root.Values.redis.existingSecret) }}
{{- $_ := set $env "REDIS_URL" $root.Values.redis.url }}
{{- end }}
{{- if and (has "redis" .uses) $root.Values.redis.sentinel.enabled }}
{{- $_ := set $env "REDIS_SENTINELS" (join "," $root.Values.redis.sentinel.hosts) }}
{{- $_ := set $env "REDIS_SENTINEL_NAME" $root.Values.redis.sentinel.masterName }}
{{- end }}
{{- if has "mongo" .uses }}
{{- $_ := set $env "MONGO_DB" ($v.mongoDatabase | default (printf "underdog-%s" .name)) }}
{{- if not $root.Values.mongo.existingSecret }}
{{- $_ := set $env "MONGO_URL" $root.Values.mongo.url }}
{{- end }}
{{- end }}
{{- if has "smtp" .uses }}
{{- if not $root.Values.smtp.existingSecret }}
{{- $_ := set $env "SMTP_URL" $root.Values.smtp.url }}
{{- end }}
{{- $_ := set $env "MAIL_FROM" $v.mailFrom }}
{{- $_ := set $env "PUBLIC_URL" $v.publicUrl }}
{{- end }}
{{- if eq .key "auth" }}
{{- $_ := set $env "ADMIN_EMAIL" $v.admin.email }}
{{- end }}
{{- if eq .key "gateway" }}
{{- $_ := set $env "TRUST_PROXY" (toString $v.trustProxy) }}
{{- $_ := set $env "WEBSOCKET_MAX_CONNECTIONS_PER_IP" (toString $v.webSocketMaxConnectionsPerIp) }}
{{- $_ := set $env "WEBSOCKET_CAPACITY" (toString $v.webSocketCapacity) }}
{{- $_ := set $env "WEBSOCKET_FULL_RETRY_SECONDS" (toString $v.webSocketFullRetrySeconds) }}
{{- $_ := set $env "WEBSOCKET_VISITOR_SHARE" (toString $v.webSocketVisitorShare) }}
{{- $_ := set $env "WEBSOCKET_MAX_CONNECTIONS_PER_PREFIX" (toString $v.webSocketMaxConnectionsPerPrefix) }}
{{- $_ := set $env "WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS" (toString $v.webSocketFirstMessageTimeoutMs) }}
{{- $_ := set $env "WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET" (toString $v.webSocketMaxSubscriptionsPerSocket) }}
{{- /* A withdrawal waits for one replica by default once Redis fails over (Sentinel). */}}
{{- $withdrawalReplicas := $v.voteWithdrawal.replicas }}
{{- if kindIs "invalid" $withdrawalReplicas }}
{{- $withdrawalReplicas = ternary 1 0 $root.Values.redis.sentinel.enabled }}
{{- end }}
{{- $_ := set $env "VOTE_WITHDRAWAL_REPLICAS" (toString $withdrawalReplicas) }}
{{- $_ := set $env "VOTE_WITHDRAWAL_WAIT_MS" (toString $v.voteWithdrawal.waitMs) }}
{{- $_ := set $env "VOTE_MAX_APPLY_LAG" (toString $v.voteBackPressure.maxApplyLag) }}
{{- $_ := set $env "VOTE_APPLY_LAG_REFRESH_MS" (toString $v.voteBackPressure.refreshMs) }}
{{- /* The session cookie gets Secure and the __Host- prefix whenever the ingress serves HTTPS. */}}
{{- $_ := set $env "COOKIE_SECURE" (ternary "true" "false" (and $root.Values.ingress.enabled (gt (len $root.Values.ingress.tls) 0))) }}
{{- /* The pages that may open a WebSocket and the CSP's connect-src: the ingress's hosts. */}}
{{- if $root.Values.ingress.enabled }}
{{- $scheme := ternary "https" "http" (gt (len $root.Values.ingress.tls) 0) }}
{{- $origins := list }}
{{- range $root.Values.ingress.hosts }}{{- if . }}{{- $origins = append $origins (printf "%s://%s" $scheme .) }}{{- end }}{{- end }}
{{- if $origins }}
{{- $_ := set $env "PUBLIC_ORIGINS" (join "," $origins) }}
{{- end }}
{{- end }}
{{- end }}
{{- range $key := .calls }}
{{- $target := dict "root" $root "key" $key }}
{{- include "underdog.init" $target }}
{{- $_ := set $env (printf "%s_URL" ($target.name | replace "-" "_" | upper)) (printf "http://%s:%d" $target.fullname $target.port) }}
{{- end }}
{{- range $name, $value := $v.env }}
{{- $_ := set $env $name (tpl (toString $value) $root) }}
{{- end }}
{{- toYaml $env }}
{{- end }}

{{/* Environment taken from Secrets (a list of EnvVar). Argument: a component dict. */}}
{{- define "underdog.secretEnv" -}}
{{- include "underdog.init" . }}
{{- $root := .root }}
{{- $refs := list }}
{{- if and (has "redis" .uses) $root.Values.redis.existingSecret }}
{{- $refs = append $refs (dict "name" "REDIS_URL" "secret" $root.Values.redis.existingSecret "key" $root.Values.redis.existingSecretKey) }}
{{- end }}
{{- $sentinel := $root.Values.redis.sentinel }}
{{- if and (has "redis" .uses) $sentinel.enabled $sentinel.existingSecret }}
{{- $refs = append $refs (dict "name" "REDIS_SENTINEL_PASSWORD" "secret" $sentinel.existingSecret "key" $sentinel.existingSecretKey) }}
{{- end }}
{{- if and (has "mongo" .uses) $root.Values.mongo.existingSecret }}
{{- $refs = append $refs (dict "name" "MONGO_URL" "secret" $root.Values.mongo.existingSecret "key" $root.Values.mongo.existingSecretKey) }}
{{- end }}
{{- if and (has "smtp" .uses) $root.Values.smtp.existingSecret }}
{{- $refs = append $refs (dict "name" "SMTP_URL" "secret" $root.Values.smtp.existingSecret "key" $root.Values.smtp.existingSecretKey) }}
{{- end }}
{{- if eq .key "auth" }}
{{- $refs = append $refs (dict "name" "ADMIN_PASSWORD" "secret" (include "underdog.adminSecretName" $root) "key" .values.admin.passwordKey) }}
{{- end }}
{{- /* Every process signs its calls and checks its callers with the one key. */}}
{{- $refs = append $refs (dict "name" "SERVICE_TOKEN_SECRET" "secret" (include "underdog.serviceTokenSecretName" $root) "key" $root.Values.serviceToken.secretKey) }}
{{- if eq .key "gateway" }}
{{- $refs = append $refs (dict "name" "FAIR_PLAY_SECRET" "secret" (include "underdog.fairPlaySecretName" $root) "key" .values.fairPlay.secretKey) }}
{{- end }}
{{- range $refs }}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
{{- end }}
{{- end }}

{{/* The ConfigMap of a component; its hash is the pods' checksum/config annotation. */}}
{{- define "underdog.configmap" -}}
{{- include "underdog.init" . }}
{{- if and .values.enabled (not .static) }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .fullname }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "underdog.componentLabels" . | nindent 4 }}
data:
  {{- range $name, $value := include "underdog.configEnv" . | fromYaml }}
  {{ $name }}: {{ $value | toString | quote }}
  {{- end }}
{{- end }}
{{- end }}

{{- define "underdog.deployment" -}}
{{- include "underdog.init" . }}
{{- $root := .root }}
{{- $v := .values }}
{{- if $v.enabled }}
{{- $autoscaling := $v.autoscaling | default dict }}
{{- if and .maxReplicas (gt (int $v.replicaCount) .maxReplicas) }}
{{- fail (printf "%s.replicaCount is %v, but at most %d replicas of %s can do work (one per partition of %s)" .key $v.replicaCount .maxReplicas .name (join ", " .consumes)) }}
{{- end }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .fullname }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "underdog.componentLabels" . | nindent 4 }}
spec:
  {{- if not $autoscaling.enabled }}
  replicas: {{ $v.replicaCount }}
  {{- end }}
  revisionHistoryLimit: {{ $root.Values.revisionHistoryLimit }}
  {{- with $v.strategy }}
  strategy:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "underdog.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "underdog.selectorLabels" . | nindent 8 }}
        app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        {{- if not .static }}
        checksum/config: {{ include "underdog.configmap" . | sha256sum }}
        {{- end }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "underdog.serviceAccountName" $root }}
      automountServiceAccountToken: false
      # Service links would add <SERVICE>_PORT variables for every Service in the namespace.
      enableServiceLinks: false
      {{- with $root.Values.global.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $v.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .name }}
          image: {{ include "underdog.image" . }}
          imagePullPolicy: {{ $v.image.pullPolicy | default $root.Values.global.image.pullPolicy }}
          ports:
            - name: http
              containerPort: {{ .port }}
              protocol: TCP
            {{- if not .static }}
            - name: metrics
              containerPort: {{ $root.Values.metrics.port }}
              protocol: TCP
            {{- end }}
          {{- if not .static }}
          envFrom:
            - configMapRef:
                name: {{ .fullname }}
          env:
            - name: INSTANCE_ID
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- with include "underdog.secretEnv" . | trim }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- end }}
          startupProbe:
            httpGet:
              path: /healthz
              port: http
            {{- toYaml $root.Values.probes.startup | nindent 12 }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            {{- toYaml $root.Values.probes.liveness | nindent 12 }}
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
            {{- toYaml $root.Values.probes.readiness | nindent 12 }}
          {{- with $v.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          securityContext:
            {{- toYaml $v.containerSecurityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        # The root filesystem is read-only; /tmp is the one writable place.
        - name: tmp
          emptyDir:
            {{- with $root.Values.tmpVolume.sizeLimit }}
            sizeLimit: {{ . }}
            {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $v.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml $v.topologySpreadConstraints | nindent 8 }}
      {{- else if $root.Values.spreadAcrossNodes }}
      # Best effort: replicas of a component on different nodes, so one node loss is survivable.
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "underdog.selectorLabels" . | nindent 14 }}
      {{- end }}
{{- end }}
{{- end }}

{{- define "underdog.service" -}}
{{- include "underdog.init" . }}
{{- $v := .values }}
{{- if $v.enabled }}
apiVersion: v1
kind: Service
metadata:
  name: {{ .fullname }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "underdog.componentLabels" . | nindent 4 }}
  {{- with $v.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $v.service.type }}
  selector:
    {{- include "underdog.selectorLabels" . | nindent 4 }}
  ports:
    - name: http
      port: {{ .port }}
      targetPort: http
      protocol: TCP
      appProtocol: http
    {{- if not .static }}
    - name: metrics
      port: {{ .root.Values.metrics.port }}
      targetPort: metrics
      protocol: TCP
      appProtocol: http
    {{- end }}
{{- end }}
{{- end }}

{{/* HorizontalPodAutoscaler (autoscaling/v2), for the components whose values have autoscaling. */}}
{{- define "underdog.hpa" -}}
{{- include "underdog.init" . }}
{{- $v := .values }}
{{- $autoscaling := $v.autoscaling | default dict }}
{{- if and $v.enabled $autoscaling.enabled }}
{{- if and .maxReplicas (gt (int $autoscaling.maxReplicas) .maxReplicas) }}
{{- fail (printf "%s.autoscaling.maxReplicas is %v, but at most %d replicas of %s can do work (one per partition of %s)" .key $autoscaling.maxReplicas .maxReplicas .name (join ", " .consumes)) }}
{{- end }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .fullname }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "underdog.componentLabels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ .fullname }}
  minReplicas: {{ $autoscaling.minReplicas }}
  maxReplicas: {{ $autoscaling.maxReplicas }}
  metrics:
    {{- with $autoscaling.targetCPUUtilizationPercentage }}
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
    {{- with $autoscaling.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
    {{- with $autoscaling.targetConnectionsPerPod }}
    # Open WebSockets per pod, through a custom-metrics API (e.g. prometheus-adapter).
    - type: Pods
      pods:
        metric:
          name: underdog_websocket_connections
        target:
          type: AverageValue
          averageValue: {{ . | quote }}
    {{- end }}
  {{- with $autoscaling.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{- define "underdog.pdb" -}}
{{- include "underdog.init" . }}
{{- $v := .values }}
{{- $pdb := $v.podDisruptionBudget }}
{{- if and $v.enabled $pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .fullname }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "underdog.componentLabels" . | nindent 4 }}
spec:
  {{- if $pdb.minAvailable }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $pdb.maxUnavailable | default 1 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "underdog.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/* Prometheus Operator ServiceMonitor scraping /metrics, when serviceMonitor.enabled. */}}
{{- define "underdog.servicemonitor" -}}
{{- include "underdog.init" . }}
{{- $root := .root }}
{{- $monitor := $root.Values.serviceMonitor }}
{{- /* A static component (nginx) has no /metrics. */}}
{{- if and .values.enabled $monitor.enabled (not .static) }}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ .fullname }}
  namespace: {{ $monitor.namespace | default $root.Release.Namespace }}
  labels:
    {{- include "underdog.componentLabels" . | nindent 4 }}
    {{- with $monitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  namespaceSelector:
    matchNames:
      - {{ $root.Release.Namespace }}
  selector:
    matchLabels:
      {{- include "underdog.selectorLabels" . | nindent 6 }}
  endpoints:
    - port: metrics
      path: /metrics
      interval: {{ $monitor.interval }}
      scrapeTimeout: {{ $monitor.scrapeTimeout }}
{{- end }}
{{- end }}

{{/*
NetworkPolicy of a component, when networkPolicy.enabled (the default): in, the ingress
controller (public components: the gateway, the web app) and the components that call it
(components.yaml `calls`: a service takes calls only from its callers), plus Prometheus on the
metrics port (not for static components, which have no /metrics); out, DNS, the infrastructure
the component uses and the components it calls. Anything else is denied. `helm test` runs with the
gateway's labels, so it reaches every component's /readyz as the gateway would.
*/}}
{{- define "underdog.networkpolicy" -}}
{{- include "underdog.init" . }}
{{- $root := .root }}
{{- $policy := $root.Values.networkPolicy }}
{{- if and .values.enabled $policy.enabled }}
{{- $public := or (eq .key "gateway") .static }}
{{- /* The components whose `calls` name this one, and the gateway for `helm test`. */}}
{{- $callers := list "gateway" }}
{{- range $key, $facts := (include "underdog.componentFacts" . | fromYaml).components }}
{{- if has $.key ($facts.calls | default list) }}
{{- $callers = append $callers $key }}
{{- end }}
{{- end }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ .fullname }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "underdog.componentLabels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "underdog.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
    - Egress
  ingress:
    - from:
        {{- if $public }}
        - namespaceSelector:
            {{- toYaml $policy.ingressControllerNamespaceSelector | nindent 12 }}
        {{- end }}
        {{- range $key := uniq $callers }}
        - podSelector:
            matchLabels:
              {{- include "underdog.selectorLabels" (dict "root" $root "key" $key) | nindent 14 }}
        {{- end }}
      ports:
        - port: http
          protocol: TCP
    {{- if not .static }}
    - from:
        - namespaceSelector:
            {{- toYaml $policy.metricsNamespaceSelector | nindent 12 }}
      ports:
        - port: metrics
          protocol: TCP
    {{- end }}
  {{- if .static }}
  # Static files only: nothing to reach.
  egress: []
  {{- else }}
  egress:
    - ports:
        - port: 53
          protocol: UDP
        - port: 53
          protocol: TCP
    {{- range $infrastructure := .uses }}
    {{- $ports := index $policy.infrastructurePorts $infrastructure }}
    {{- if and (eq $infrastructure "redis") $root.Values.redis.sentinel.enabled }}
    {{- /* The Sentinels' own ports, from their host:port. */}}
    {{- range $root.Values.redis.sentinel.hosts }}
    {{- $ports = append $ports (splitList ":" . | last | int) }}
    {{- end }}
    {{- end }}
    - ports:
        {{- range uniq $ports }}
        - port: {{ . }}
          protocol: TCP
        {{- end }}
      {{- with $policy.infrastructurePeers }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- range $key := .calls }}
    {{- $target := dict "root" $root "key" $key }}
    {{- include "underdog.init" $target }}
    - to:
        - podSelector:
            matchLabels:
              {{- include "underdog.selectorLabels" $target | nindent 14 }}
      ports:
        - port: {{ $target.port }}
          protocol: TCP
    {{- end }}
  {{- end }}
{{- end }}
{{- end }}

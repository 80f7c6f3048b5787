{{- define "relay.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "relay.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "relay.labels" -}}
app.kubernetes.io/name: {{ include "relay.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "relay.selector" -}}
app.kubernetes.io/name: {{ include "relay.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "relay.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "relay.secretName" -}}
{{- .Values.existingSecret | default (include "relay.fullname" .) -}}
{{- end -}}

{{- define "relay.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "relay.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "relay.publicBaseUrl" -}}
{{- if .Values.publicBaseUrl -}}
{{- .Values.publicBaseUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}
{{- printf "https://%s" .Values.ingress.host -}}
{{- else -}}
{{- required "publicBaseUrl: the address users and senders reach (or ingress.host)" .Values.publicBaseUrl -}}
{{- end -}}
{{- end -}}

{{- define "relay.temporalTls" -}}
{{- $t := .Values.temporal -}}
{{- if or $t.tls.enabled $t.tls.caSecret.name $t.tls.clientSecret $t.apiKey.enabled -}}true{{- end -}}
{{- end -}}

{{/* A value from the existing Secret: never written into a manifest. */}}
{{- define "relay.secretEnv" -}}
- name: {{ .key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "relay.secretName" .root }}
      key: {{ .key }}
{{- end -}}

{{/* What every process reads (docs/configuration.md): the same for relay api, relay worker and relay migrate. */}}
{{- define "relay.env" -}}
- name: NODE_ENV
  value: production
- name: HOST
  value: 0.0.0.0
- name: PORT
  value: "3000"
- name: PUBLIC_BASE_URL
  value: {{ include "relay.publicBaseUrl" . | quote }}
- name: RELAY_TRUST_PROXY
  value: {{ .Values.trustProxy | quote }}
{{ include "relay.secretEnv" (dict "root" . "key" "RELAY_ENCRYPTION_KEYS") }}
{{ include "relay.secretEnv" (dict "root" . "key" "RELAY_JWT_SECRET") }}
{{ include "relay.secretEnv" (dict "root" . "key" "DATABASE_URL") }}
{{- with .Values.database.sslMode }}
- name: DATABASE_SSL_MODE
  value: {{ . | quote }}
{{- end }}
{{- if .Values.database.caSecret.name }}
- name: DATABASE_SSL_CA
  value: /etc/relay/database-ca/{{ .Values.database.caSecret.key }}
{{- end }}
- name: TEMPORAL_ADDRESS
  value: {{ required "temporal.address: the Temporal frontend, host:port" .Values.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ .Values.temporal.namespace | quote }}
- name: TEMPORAL_TASK_QUEUE
  value: {{ .Values.temporal.taskQueue | quote }}
{{- if include "relay.temporalTls" . }}
- name: TEMPORAL_TLS
  value: "true"
{{- end }}
{{- with .Values.temporal.tls.serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- if .Values.temporal.tls.caSecret.name }}
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /etc/relay/temporal-ca/{{ .Values.temporal.tls.caSecret.key }}
{{- end }}
{{- if .Values.temporal.tls.clientSecret }}
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /etc/relay/temporal-client/tls.crt
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /etc/relay/temporal-client/tls.key
{{- end }}
{{- if .Values.temporal.apiKey.enabled }}
{{ include "relay.secretEnv" (dict "root" . "key" "TEMPORAL_API_KEY") }}
{{- end }}
- name: RELAY_METRICS_PORT
  value: {{ .Values.metrics.port | quote }}
- name: RELAY_WORKER_METRICS_PORT
  value: {{ .Values.metrics.port | quote }}
{{- if .Values.metrics.token.enabled }}
{{ include "relay.secretEnv" (dict "root" . "key" "RELAY_METRICS_TOKEN") }}
{{- end }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{/* Writable /tmp on the read-only root, and the CA and client certificates from their Secrets. */}}
{{- define "relay.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.database.caSecret.name }}
- name: database-ca
  mountPath: /etc/relay/database-ca
  readOnly: true
{{- end }}
{{- if .Values.temporal.tls.caSecret.name }}
- name: temporal-ca
  mountPath: /etc/relay/temporal-ca
  readOnly: true
{{- end }}
{{- if .Values.temporal.tls.clientSecret }}
- name: temporal-client
  mountPath: /etc/relay/temporal-client
  readOnly: true
{{- end }}
{{- end -}}

{{- define "relay.volumes" -}}
- name: tmp
  emptyDir:
    medium: Memory
    sizeLimit: 64Mi
{{- if .Values.database.caSecret.name }}
- name: database-ca
  secret:
    secretName: {{ .Values.database.caSecret.name }}
{{- end }}
{{- if .Values.temporal.tls.caSecret.name }}
- name: temporal-ca
  secret:
    secretName: {{ .Values.temporal.tls.caSecret.name }}
{{- end }}
{{- if .Values.temporal.tls.clientSecret }}
- name: temporal-client
  secret:
    secretName: {{ .Values.temporal.tls.clientSecret }}
{{- end }}
{{- end -}}

{{/* The pod spec's common part. */}}
{{- define "relay.podCommon" -}}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  {{- include "relay.volumes" . | nindent 2 }}
{{- end -}}

{{- define "relay.podAnnotations" -}}
{{- if .Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.metrics.port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- with .Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end -}}

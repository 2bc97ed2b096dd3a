{{- define "platform.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "platform.labels" -}}
{{ include "common.labels" . }}
{{- with (omit .Values.extraLabels "remove-me") }}
{{ toYaml . }}
{{- end }}
{{- end -}}

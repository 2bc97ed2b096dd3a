package config

import (
	"errors"
	"strings"
	"testing"
)

func TestSyncReadinessValidated(t *testing.T) {
	tests := []struct{ yaml, says string }{
		{"syncReadiness: {kubeVersions: {staging: '1.31'}}", `"staging" is not one of the environments`},
		{"syncReadiness: {kubeVersions: {prod: latest}}", `"latest" is not a Kubernetes version`},
		{"syncReadiness: {severity: {api-gone: off}}", `unknown rule "api-gone"`},
		{"syncReadiness: {severity: {api-deprecated: fatal}}", `must be error, warning, info or off`},
		{"syncReadiness: {severities: {}}", "severities"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(trustBase + tt.yaml + "\n"))
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: error %v, want one saying %q", tt.yaml, err, tt.says)
		}
		if err != nil && !strings.Contains(tt.yaml, "severities") && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v is not ErrInvalid", tt.yaml, err)
		}
	}
	c, err := Parse([]byte(trustBase + "kubeVersion: '1.30'\nsyncReadiness: {kubeVersions: {prod: v1.31.2}, severity: {shared-resource: off}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.KubeVersionOf("prod") != "v1.31.2" || c.KubeVersionOf("qa") != "1.30" {
		t.Errorf("KubeVersionOf: prod %q, qa %q", c.KubeVersionOf("prod"), c.KubeVersionOf("qa"))
	}
}

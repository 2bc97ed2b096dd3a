package manifestdiff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/report"
)

// TestParameterOverrideFilesRender: a chart directory holding
// .argocd-source.yaml and .argocd-source-<app>.yaml renders with their
// parameters merged in, as the repo-server merges them, and a change to
// one of them is a change of the app.
func TestParameterOverrideFilesRender(t *testing.T) {
	app := strings.NewReplacer("      fileParameters:\n      - {name: config, path: files/app.conf}\n      - {name: banner, path: /envs/prod/tool/banner.txt}\n", "").Replace(toolApp)
	base := derive(t, exampleFleet(t)).
		write("charts/tool/Chart.yaml", "apiVersion: v2\nname: tool\nversion: 0.1.0\n").
		write("charts/tool/values.yaml", "config: default\nbanner: none\n").
		write("charts/tool/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tool}\n"+
			"data:\n  config: {{ .Values.config | quote }}\n  banner: {{ .Values.banner | quote }}\n").
		write("argocd/prod/app-tool.yaml", app)
	head := derive(t, base.m).
		write("charts/tool/.argocd-source.yaml", "helm:\n  parameters:\n  - {name: banner, value: from-repo-file}\n").
		write("charts/tool/.argocd-source-tool-prod.yaml", "helm:\n  parameters:\n  - {name: config, value: from-app-file}\n  - {name: banner, value: app-$ARGOCD_APP_NAME}\n")
	rep, _, err := run(t, base.m, head.m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"prod/tool-prod": "changed"}, statuses(rep, report.StatusUnchanged)); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	cm := resource(t, findApp(t, rep, "prod", "tool-prod"), "ConfigMap")
	for _, want := range []string{"-  banner: none\n", "-  config: from-parameter\n", "+  banner: app-tool-prod\n", "+  config: from-app-file\n"} {
		if !strings.Contains(cm.Diff, want) {
			t.Errorf("ConfigMap diff lacks %q:\n%s", want, cm.Diff)
		}
	}
}

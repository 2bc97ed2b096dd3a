package manifestdiff

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/report"
)

// TestRemoteValueFiles: a value file given as an http(s) URL is
// downloaded, as helm does for Argo CD (helm.valuesFileSchemes defaults to
// https and http), in its place among the others; a URL that answers 404
// fails the app naming it, ignoreMissingValueFiles or not.
func TestRemoteValueFiles(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/values/prod.yaml" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("banner: from-url\nconfig: from-url\n"))
	}))
	defer srv.Close()
	app := strings.NewReplacer(
		"      parameters: [{name: config, value: from-parameter}]\n", "      ignoreMissingValueFiles: true\n      valueFiles: ["+srv.URL+"/values/prod.yaml, local.yaml]\n",
		"      fileParameters:\n      - {name: config, path: files/app.conf}\n      - {name: banner, path: /envs/prod/tool/banner.txt}\n", "").Replace(toolApp)
	base := exampleFleet(t)
	head := derive(t, base).
		write("charts/tool/Chart.yaml", "apiVersion: v2\nname: tool\nversion: 0.1.0\n").
		write("charts/tool/values.yaml", "config: default\nbanner: none\n").
		write("charts/tool/local.yaml", "config: from-local\n").
		write("charts/tool/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tool}\n"+
			"data:\n  config: {{ .Values.config | quote }}\n  banner: {{ .Values.banner | quote }}\n").
		write("argocd/prod/app-tool.yaml", app).
		write("argocd/prod/app-tool404.yaml", strings.NewReplacer("tool-prod", "tool404-prod", "/values/prod.yaml", "/values/none.yaml").Replace(app))
	rep, _, err := run(t, base, head.m, 0)
	if err == nil {
		t.Fatal("want the 404 app to fail")
	}
	cm := resource(t, findApp(t, rep, "prod", "tool-prod"), "ConfigMap")
	for _, want := range []string{"+  banner: from-url\n", "+  config: from-local\n"} {
		if !strings.Contains(cm.Diff, want) {
			t.Errorf("ConfigMap lacks %q:\n%s", want, cm.Diff)
		}
	}
	if a := findApp(t, rep, "prod", "tool404-prod"); a.Status != report.StatusError || !strings.Contains(a.Error, "failed to fetch "+srv.URL+"/values/none.yaml : 404 Not Found") {
		t.Errorf("tool404-prod: %s %q", a.Status, a.Error)
	}
}

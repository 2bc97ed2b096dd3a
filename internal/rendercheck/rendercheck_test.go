package rendercheck

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFind: manifestdiff beside promote first, then PATH in order; a file
// that is not executable, or a directory of that name, is not it.
func TestFind(t *testing.T) {
	self, onPath, notExec, dirNamed := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	for dir, mode := range map[string]os.FileMode{self: 0o755, onPath: 0o755, notExec: 0o644} {
		if err := os.WriteFile(filepath.Join(dir, Tool), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dirNamed, Tool), 0o755); err != nil {
		t.Fatal(err)
	}
	path := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }
	for _, c := range []struct {
		name, self, path, want string
	}{
		{"beside promote wins", filepath.Join(self, "promote"), path(onPath), self},
		{"then PATH", filepath.Join(t.TempDir(), "promote"), path("", notExec, dirNamed, onPath), onPath},
		{"nowhere", "", path(notExec, dirNamed), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Find(c.self, c.path)
			if c.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("Find = %q, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil || got != filepath.Join(c.want, Tool) {
				t.Fatalf("Find = %q, %v; want %s", got, err, filepath.Join(c.want, Tool))
			}
		})
	}
}

// manifestdiff's JSON report, as docs/manifestdiff.md documents it.
const reportJSON = `{
  "base": "b", "head": "h",
  "findings": [
    {"rule": "project-cluster-resource", "severity": "error", "env": "prod", "app": "api-prod",
     "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "namespace": "", "name": "reader",
     "message": "cluster-scoped rbac.authorization.k8s.io/ClusterRole is not permitted by AppProject p (projects.yaml:3)"},
    {"rule": "api-removed", "severity": "error", "env": "prod", "app": "web-prod", "apiVersion": "extensions/v1beta1",
     "kind": "Ingress", "namespace": "web", "name": "web", "message": "gone", "preexisting": true},
    {"rule": "project-missing", "severity": "info", "env": "prod", "app": "x-prod", "apiVersion": "", "kind": "",
     "namespace": "", "name": "", "message": "default assumed"},
    {"rule": "api-removed", "severity": "error", "env": "qa", "app": "web-qa", "apiVersion": "extensions/v1beta1",
     "kind": "Ingress", "namespace": "web", "name": "web", "message": "gone"}
  ],
  "apps": [
    {"env": "prod", "name": "api-prod", "status": "changed", "resources": []},
    {"env": "prod", "name": "db-prod", "status": "error", "error": "env prod, app db-prod: chart db 1.0.0: not found", "resources": []},
    {"env": "prod", "name": "web-prod", "status": "unchanged", "resources": []}
  ],
  "summary": {}
}`

// TestParse reads the report: findings (the raw array kept), the apps in
// error, how many were rendered; a document that is not a report is an
// error, never an empty pass.
func TestParse(t *testing.T) {
	res, err := parse([]byte(reportJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 4 || res.Rendered != 1 || len(res.Errors) != 1 || res.Errors[0].Name != "db-prod" {
		t.Errorf("parsed %+v", res)
	}
	if !strings.HasPrefix(strings.TrimSpace(string(res.Raw)), `[`) || !strings.Contains(string(res.Raw), `"preexisting": true`) {
		t.Errorf("raw findings not kept as written: %s", res.Raw)
	}
	fresh := res.NewErrors("prod")
	if len(fresh) != 1 || fresh[0].App != "api-prod" {
		t.Errorf("new prod errors %+v", fresh)
	}
	if n := len(res.NewErrors("")); n != 2 {
		t.Errorf("new errors of every env: %d, want 2", n)
	}
	if n := len(res.Shown()); n != 3 {
		t.Errorf("shown %d, want 3 (info is JSON only)", n)
	}
	empty, err := parse([]byte(`{"base": "b", "head": "b", "apps": [], "summary": {}}`))
	if err != nil || string(empty.Raw) != "[]" || len(empty.Findings) != 0 {
		t.Errorf("report without findings: %+v %v", empty, err)
	}
	for _, bad := range []string{``, `{"apps": []}`, `[]`, `manifestdiff: boom`} {
		if _, err := parse([]byte(bad)); err == nil {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}

// TestLine: manifestdiff's terminal line, object left out for an
// app-level finding.
func TestLine(t *testing.T) {
	for _, c := range []struct {
		f    Finding
		want string
	}{
		{Finding{Rule: "api-removed", Severity: "error", Env: "prod", App: "web", APIVersion: "extensions/v1beta1", Kind: "Ingress", Namespace: "web", Name: "w", Message: "gone"},
			"error api-removed prod/web extensions/v1beta1 Ingress web/w: gone"},
		{Finding{Rule: "project-cluster-resource", Severity: "error", Env: "prod", App: "api", APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "r", Message: "m"},
			"error project-cluster-resource prod/api rbac.authorization.k8s.io/v1 ClusterRole r: m"},
		{Finding{Rule: "project-source", Severity: "error", Env: "prod", App: "api", Message: "m"}, "error project-source prod/api: m"},
		{Finding{Rule: "project-missing", Severity: "info", Env: "prod", Message: "m"}, "info project-missing prod: m"},
	} {
		if got := c.f.Line(); got != c.want {
			t.Errorf("Line() = %q, want %q", got, c.want)
		}
	}
}

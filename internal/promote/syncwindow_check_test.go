package promote

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// Malformed sync windows are check findings naming file:line, once even
// when every env reads the same AppProject file.
func TestCheckSyncWindowFindings(t *testing.T) {
	projects, err := os.ReadFile("../syncwindow/testdata/projects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(testConfig + "appProjects: [argocd/projects.yaml]\n"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := tree("1.1.0", "1.0.0", "v1")
	fsys["argocd/projects.yaml"] = &fstest.MapFile{Data: projects}
	var got []string
	for _, f := range Check(fsys, cfg, cfg.Environments) {
		if strings.HasPrefix(f.Rule, "sync-window") {
			got = append(got, f.Env+" "+f.Rule+" "+f.File+":"+strconv.Itoa(f.Line))
		}
	}
	want := []string{
		"qa sync-window-always-deny argocd/projects.yaml:15",
		"qa sync-window-invalid argocd/projects.yaml:46",
		"qa sync-window-invalid argocd/projects.yaml:52",
		"qa sync-window-invalid argocd/projects.yaml:54",
		"qa sync-window-invalid argocd/projects.yaml:59",
		"qa sync-window-never-fires argocd/projects.yaml:62",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

package ordering

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// The acceptance case: the bench generator's layout checks clean with
// manualSync [preprod, prod], and prod lists its components in waves -2..3.
func TestGeneratedRepo(t *testing.T) {
	m, cfg, ocfg := loadRepo(t, "testdata/genrepo")
	inv := build(t, m, cfg)
	if got := Check(inv, ocfg); len(got) != 0 {
		t.Errorf("generated repo has findings:\n%v", got)
	}
	prod := build(t, m, cfg, "prod")
	var got []string
	for _, o := range prod.Envs[0].Objects() {
		if !o.Root {
			got = append(got, o.Kind+" "+o.Name+" "+itoa(o.Wave))
		}
	}
	want := []string{
		"Application dlt-backup-prod -2",
		"ApplicationSet dlt-nodes-namespace-prod -1",
		"Application dlt-shared-services-prod 0",
		"ApplicationSet dlt-nodes-vault-prod 1",
		"ApplicationSet dlt-nodes-backend-prod 2",
		"ApplicationSet dlt-nodes-frontend-prod 3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prod order (-want +got):\n%s", diff)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestInventoryGolden(t *testing.T) {
	m, cfg, _ := loadRepo(t, "testdata/repo")
	inv := build(t, m, cfg)
	js, err := json.MarshalIndent(inv, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := Markdown(&md, inv); err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := Table(&table, inv); err != nil {
		t.Fatal(err)
	}
	golden(t, "inventory.json", append(js, '\n'))
	golden(t, "inventory.md", md.Bytes())
	golden(t, "inventory.txt", table.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", file, diff)
	}
}

// listAppSet generates one app per element, each with its own wave.
const listAppSet = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: jobs}
spec:
  generators:
  - list:
      elements: [{name: early, w: "1"}, {name: late, w: "4"}, {name: bad, w: "x"}]
  template:
    metadata:
      name: 'job-{{name}}'
      annotations: {argocd.argoproj.io/sync-wave: '{{w}}'}
    spec:
      project: p
      source: {repoURL: https://charts.example.org/ledger, chart: job, targetRevision: "1"}
      destination: {server: https://kubernetes.default.svc, namespace: jobs}
`

// A templated wave orders the ApplicationSet by its earliest app, and only
// the generated app whose rendered wave is not an integer is reported.
func TestTemplatedWave(t *testing.T) {
	_, cfg, ocfg := loadRepo(t, "testdata/repo")
	m := fstest.MapFS{"argocd/qa/jobs.yaml": {Data: []byte(listAppSet)}}
	inv := build(t, m, cfg, "qa")
	o := inv.Envs[0].Objects()[0]
	if o.Wave != 0 || o.WaveText != "{{w}}" || len(o.Apps) != 3 {
		t.Fatalf("appset = %+v", o)
	}
	waves := map[string]int{}
	for _, a := range o.Apps {
		waves[a.Name] = a.Wave
	}
	if diff := cmp.Diff(map[string]int{"job-early": 1, "job-late": 4, "job-bad": 0}, waves); diff != "" {
		t.Errorf("waves (-want +got):\n%s", diff)
	}
	got := Check(inv, ocfg)
	if diff := cmp.Diff([]string{"wave-invalid qa job-bad"}, brief(got)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	var md bytes.Buffer
	if err := Markdown(&md, inv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), `wave templated "{{w}}"`) || !strings.Contains(md.String(), "job-late (wave 4)") {
		t.Errorf("markdown lacks templated wave notes:\n%s", md.String())
	}
}

func TestBuildErrors(t *testing.T) {
	m, cfg, _ := loadRepo(t, "testdata/repo")
	if _, err := Build(m, cfg, "staging"); err == nil || !strings.Contains(err.Error(), `unknown environment "staging"`) {
		t.Errorf("unknown env: err = %v", err)
	}
	m["argocd/qa/broken.yaml"] = &fstest.MapFile{Data: []byte("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: [\n")}
	if _, err := Build(m, cfg, "qa"); err == nil || !strings.Contains(err.Error(), "argocd/qa/broken.yaml") {
		t.Errorf("broken manifest: err = %v", err)
	}
}

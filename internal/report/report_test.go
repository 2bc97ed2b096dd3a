package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func parse(t *testing.T, manifest, ns string) []diff.Resource {
	t.Helper()
	rs, err := diff.Parse([]byte(manifest), ns)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// appOf diffs two renders of one app like manifestdiff does.
func appOf(t *testing.T, env, name, base, head string) App {
	t.Helper()
	res := diff.Resources(parse(t, base, env), parse(t, head, env), nil, diff.Options{})
	return App{Env: env, Name: name, Status: AppStatus(res), Resources: res}
}

func deployment(name, image string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  labels:
    app.kubernetes.io/instance: %[1]s
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: %[2]s
`, name, image)
}

func fixtureFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "diff", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixtureReport mixes every case the outputs must handle.
func fixtureReport(t *testing.T) Report {
	t.Helper()
	base, head, again := fixtureFile(t, "base.yaml"), fixtureFile(t, "head.yaml"), fixtureFile(t, "head-again.yaml")
	ignore := diff.Options{Ignore: []string{"metadata.labels.helm.sh/chart", "spec.template.metadata.annotations.checksum/config"}}
	webRes := diff.Resources(parse(t, base, "web"), parse(t, head, "web"), parse(t, again, "web"), ignore)
	r := Report{Base: "main", Head: "feature/bump"}
	r.Apps = append(r.Apps,
		App{Env: "staging", Name: "web", Status: AppStatus(webRes), Resources: webRes},
		appOf(t, "staging", "worker", deployment("worker", "w:1"), deployment("worker", "w:1")),
		appOf(t, "staging", "api", deployment("api", "shared:1"), deployment("api", "shared:2")),
		appOf(t, "staging", "billing", deployment("billing", "shared:1"), deployment("billing", "shared:2")),
		App{Env: "staging", Name: "docs", Status: StatusUnchanged, NotRendered: "kustomize sources are not rendered"},
		App{Env: "prod", Name: "broken", Status: StatusError, Error: "prod/broken: render chart web 1.2.3: template: web/templates/x.yaml:3: nil pointer"},
		appOf(t, "prod", "api", deployment("api", "shared:1"), deployment("api", "shared:2")),
		App{Env: "prod", Name: "new-app", Status: StatusAdded, Resources: diff.Resources(nil, parse(t, deployment("new-app", "n:1"), "prod"), nil, diff.Options{})},
	)
	return r
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, d)
	}
}

func TestGolden(t *testing.T) {
	r := fixtureReport(t)
	outputs := []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"report.md", func(b *bytes.Buffer) error { return Markdown(b, r) }},
		{"report.json", func(b *bytes.Buffer) error { return JSON(b, r) }},
		{"report.diff", func(b *bytes.Buffer) error { return Diff(b, r, false) }},
		{"report-color.diff", func(b *bytes.Buffer) error { return Diff(b, r, true) }},
		{"nochange.md", func(b *bytes.Buffer) error {
			return Markdown(b, Report{Base: "a", Head: "b", Apps: []App{appOf(t, "dev", "x", deployment("x", "i:1"), deployment("x", "i:1"))}})
		}},
	}
	for _, o := range outputs {
		t.Run(o.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := o.write(&b); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, o.file, b.Bytes())
		})
	}
}

func TestSummary(t *testing.T) {
	got := fixtureReport(t).Summary()
	want := Summary{
		Apps:     8,
		ByStatus: Counts{Added: 1, Changed: 4, Unchanged: 2, Error: 1},
		ByEnv: []EnvCounts{
			{Env: "staging", Counts: Counts{Changed: 3, Unchanged: 2}},
			{Env: "prod", Counts: Counts{Added: 1, Changed: 1, Error: 1}},
		},
		Resources:   ResourceCounts{Added: 2, Removed: 1, Changed: 7},
		Errors:      1,
		NotRendered: 1,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func TestWriteErrors(t *testing.T) {
	r := fixtureReport(t)
	for name, err := range map[string]error{
		"markdown": Markdown(failWriter{}, r), "json": JSON(failWriter{}, r), "diff": Diff(failWriter{}, r, false),
	} {
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

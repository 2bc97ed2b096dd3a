package argo

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// parityCase is one documented Argo CD ApplicationSet example
// (testdata/appset-parity/*.yaml): the repository files it reads, the
// ApplicationSet, and the Applications Argo CD's documentation says it
// generates, written by hand from the documentation, never from our
// output. Where an example uses a generator that needs a cluster, the
// case says how it was replaced (a list of the documented clusters).
type parityCase struct {
	Doc     string            `yaml:"doc"`
	Note    string            `yaml:"note"`
	RepoURL string            `yaml:"repoURL"`
	Files   map[string]string `yaml:"files"`
	AppSet  string            `yaml:"appset"`
	Want    []parityApp       `yaml:"want"`
	Error   string            `yaml:"error"` // instead of want: the error Argo CD reports
}

// parityApp is what a generated Application is compared on.
type parityApp struct {
	Name      string            `yaml:"name"`
	Project   string            `yaml:"project"`
	Server    string            `yaml:"server"`
	Namespace string            `yaml:"namespace"`
	Labels    map[string]string `yaml:"labels,omitempty"`
	Sources   []paritySource    `yaml:"sources"`
}

type paritySource struct {
	RepoURL        string            `yaml:"repoURL"`
	Path           string            `yaml:"path,omitempty"`
	Chart          string            `yaml:"chart,omitempty"`
	TargetRevision string            `yaml:"targetRevision,omitempty"`
	ReleaseName    string            `yaml:"releaseName,omitempty"`
	Parameters     map[string]string `yaml:"parameters,omitempty"`
}

func TestAppSetParityWithArgoCDDocs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "appset-parity", "*.yaml"))
	if err != nil || len(files) < 10 {
		t.Fatalf("parity cases: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c parityCase
			if err := yaml.Unmarshal(data, &c); err != nil {
				t.Fatal(err)
			}
			if c.Doc == "" || (c.Want == nil) == (c.Error == "") {
				t.Fatal("a case names its documentation and wants either apps or an error")
			}
			cfg, err := config.Parse([]byte("repoURL: " + c.RepoURL + "\nenvironments: [qa]\nversions: versions/{env}.yaml\nmanifests: [\"argocd/*.yaml\"]\ncomponents: {x: {chart: x}}\n"))
			if err != nil {
				t.Fatal(err)
			}
			fsys := fstest.MapFS{"argocd/appset.yaml": {Data: []byte(c.AppSet)}}
			for name, content := range c.Files {
				fsys[name] = &fstest.MapFile{Data: []byte(content)}
			}
			apps, err := Discover(fsys, cfg, "qa")
			if c.Error != "" {
				if err == nil || !strings.Contains(err.Error(), c.Error) {
					t.Fatalf("err = %v, want it to contain %q", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := make([]parityApp, 0, len(apps))
			for _, a := range apps {
				got = append(got, toParity(a))
			}
			want := c.Want
			sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("applications (-want +got):\n%s", diff)
			}
		})
	}
}

func toParity(a App) parityApp {
	p := parityApp{Name: a.Name, Project: a.Project, Server: a.Server, Namespace: a.Namespace, Labels: a.Labels}
	for _, s := range a.Sources {
		ps := paritySource{RepoURL: s.RepoURL, Path: s.Path, Chart: s.Chart, TargetRevision: s.TargetRevision}
		if s.Helm != nil {
			ps.ReleaseName = s.Helm.ReleaseName
			for _, prm := range s.Helm.Parameters {
				if ps.Parameters == nil {
					ps.Parameters = map[string]string{}
				}
				ps.Parameters[prm.Name] = prm.Value
			}
		}
		p.Sources = append(p.Sources, ps)
	}
	return p
}

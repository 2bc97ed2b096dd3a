package argo

import (
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

const fixtureDir = "testdata/repo"

func fixture(t *testing.T) (fs.FS, *config.Config) {
	t.Helper()
	cfg, err := config.Load(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	return os.DirFS(fixtureDir), cfg
}

// The golden files show YAML blobs as text rather than base64.
type goldenHelm struct {
	*Helm
	ValuesObject string `json:",omitempty"`
}

type goldenSource struct {
	Source
	Helm              *goldenHelm `json:",omitempty"`
	Kustomize, Plugin string      `json:",omitempty"`
}

type goldenApp struct {
	App
	Sources []goldenSource
}

func golden(apps []App) []goldenApp {
	var out []goldenApp
	for _, a := range apps {
		g := goldenApp{App: a}
		for _, s := range a.Sources {
			gs := goldenSource{Source: s, Kustomize: string(s.Kustomize), Plugin: string(s.Plugin)}
			if s.Helm != nil {
				gs.Helm = &goldenHelm{Helm: s.Helm, ValuesObject: string(s.Helm.ValuesObject)}
			}
			g.Sources = append(g.Sources, gs)
		}
		out = append(out, g)
	}
	return out
}

func TestDiscoverGolden(t *testing.T) {
	fsys, cfg := fixture(t)
	for _, env := range cfg.Environments {
		t.Run(env, func(t *testing.T) {
			apps, err := Discover(fsys, cfg, env)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(golden(apps), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := filepath.Join("testdata", "golden", env+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", file, diff)
			}
		})
	}
}

func TestDiscoverNames(t *testing.T) {
	fsys, cfg := fixture(t)
	tests := []struct {
		env  string
		want []string
	}{
		{"qa", []string{
			"ledger-node-north-api-qa", "ledger-node-north-namespace-qa", "ledger-node-north-vault-qa", "ledger-node-north-web-qa",
			"ledger-node-south-api-qa", "ledger-node-south-namespace-qa", "ledger-node-south-vault-qa", "ledger-node-south-web-qa",
			"ledger-node-west.1-api-qa", "ledger-node-west.1-namespace-qa", "ledger-node-west.1-vault-qa", "ledger-node-west.1-web-qa",
			"ledger-root-qa", "ledger-snapshots-qa", "platform-services-qa",
		}},
		{"prod", []string{"ledger-node-east-api-prod", "ledger-node-north-api-prod", "overlay-prod", "toolbox-prod"}},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			apps, err := Discover(fsys, cfg, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, names(apps)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
}

func names(apps []App) []string {
	var out []string
	for _, a := range apps {
		out = append(out, a.Name)
	}
	return out
}

func TestDiscoverUnknownEnv(t *testing.T) {
	fsys, cfg := fixture(t)
	if _, err := Discover(fsys, cfg, "staging"); err == nil {
		t.Fatal("want error for unknown env")
	}
}

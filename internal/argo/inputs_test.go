package argo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// fixtureMap copies the fixture repository into a MapFS tests can edit.
func fixtureMap(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(fixtureDir), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(fixtureDir + "/" + p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// contentIDs is a ContentIDFS over a MapFS, as a git tree view is one.
type contentIDs struct{ fstest.MapFS }

func (c contentIDs) ContentID(name string) (string, error) {
	data, err := fs.ReadFile(c.MapFS, name)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

func keys(t *testing.T, fsys fs.FS, env string) map[string]string {
	t.Helper()
	_, cfg := fixture(t)
	apps, err := Discover(fsys, cfg, env)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range apps {
		k, err := a.InputsKey(fsys, cfg.RepoURL, "rev")
		if err != nil {
			t.Fatal(err)
		}
		out[a.Name] = k
	}
	return out
}

func TestInputsKey(t *testing.T) {
	edit := func(file, old, new string) func(fstest.MapFS) {
		return func(m fstest.MapFS) {
			m[file] = &fstest.MapFile{Data: []byte(strings.Replace(string(m[file].Data), old, new, 1))}
		}
	}
	add := func(file, data string) func(fstest.MapFS) {
		return func(m fstest.MapFS) { m[file] = &fstest.MapFile{Data: []byte(data)} }
	}
	tests := []struct {
		name    string
		env     string
		change  func(fstest.MapFS)
		changed []string // apps whose key must change; all others must not
	}{
		{"unchanged", "qa", func(fstest.MapFS) {}, nil},
		{"node value file", "qa", edit("envs/qa/nodes/node-north/values-vault.yaml", "vault", "vault2"),
			[]string{"ledger-node-north-vault-qa"}},
		{"chart version", "qa", edit("argocd/qa/backup.yaml", `"0.7.2"`, `"0.7.3"`),
			[]string{"ledger-snapshots-qa", "ledger-root-qa"}},
		{"source spec", "qa", edit("argocd/qa/shared-services.yaml", "releaseName: platform", "releaseName: plat"),
			[]string{"platform-services-qa", "ledger-root-qa"}},
		{"optional value file appears", "qa", add("envs/qa/shared-services/optional.yaml", "x: 1\n"),
			[]string{"platform-services-qa"}},
		{"excluded file of the root app", "qa", edit("argocd/qa/root.yaml", "# The app", "# This app"), nil},
		{"shared versions file", "qa", edit("versions/qa.yaml", "4.0.1", "4.0.2"),
			[]string{"ledger-node-north-api-qa", "ledger-node-north-vault-qa", "ledger-node-north-web-qa",
				"ledger-node-south-api-qa", "ledger-node-south-vault-qa", "ledger-node-south-web-qa",
				"ledger-node-west.1-api-qa", "ledger-node-west.1-vault-qa", "ledger-node-west.1-web-qa", "platform-services-qa"}},
		{"git path chart template", "prod", edit("charts/toolbox/templates/cm.yaml", "toolbox", "toolbox2"),
			[]string{"toolbox-prod", "overlay-prod"}}, // kustomize hashes the whole tree
		{"unrelated file", "prod", add("docs/readme.md", "hi"), []string{"overlay-prod"}},
	}
	// each case by content, and by content id (the files named, not read)
	for _, tt := range tests {
		for _, ids := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ids=%v", tt.name, ids), func(t *testing.T) {
				m := fixtureMap(t)
				view := func() fs.FS {
					if ids {
						return contentIDs{m}
					}
					return m
				}
				before := keys(t, view(), tt.env)
				tt.change(m)
				after := keys(t, view(), tt.env)
				if byContent := keys(t, m, tt.env); ids && maps.Equal(after, byContent) {
					t.Error("keys by content id equal keys by content: ContentID was not used")
				}
				want := map[string]bool{}
				for _, n := range tt.changed {
					want[n] = true
				}
				for name, k := range before {
					if got := after[name] != k; got != want[name] {
						t.Errorf("app %s: key changed = %v, want %v", name, got, want[name])
					}
				}
			})
		}
	}
}

func TestDirectoryFiles(t *testing.T) {
	m := fstest.MapFS{
		"d/a.yaml": {}, "d/b.yml": {}, "d/c.json": {}, "d/skip.txt": {}, "d/sub/e.yaml": {}, "d/sub/deep/f.yaml": {},
	}
	tests := []struct {
		name string
		dir  *Directory
		want string
	}{
		{"defaults", nil, "d/a.yaml d/b.yml d/c.json"},
		{"recurse", &Directory{Recurse: true}, "d/a.yaml d/b.yml d/c.json d/sub/deep/f.yaml d/sub/e.yaml"},
		{"include crosses slashes", &Directory{Recurse: true, Include: "*.yaml"}, "d/a.yaml d/sub/deep/f.yaml d/sub/e.yaml"},
		{"alternatives and exclude", &Directory{Recurse: true, Include: "{*.yml,*.json,sub/*}", Exclude: "sub/deep/*"}, "d/b.yml d/c.json d/sub/e.yaml"},
		{"bad include matches nothing", &Directory{Include: "[", Exclude: ""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Source{Path: "d", Directory: tt.dir}.DirectoryFiles(m)
			if err != nil {
				t.Fatal(err)
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
}

// Moving an Application to another namespace renames it for Argo CD
// (ARGOCD_APP_NAME, tracking), and spec.sources instead of spec.source
// changes what "$name/" means: both change the inputs.
func TestInputsKeyInstanceAndMultiSource(t *testing.T) {
	a := App{Name: "x", Instance: "x", Sources: []Source{{RepoURL: "https://charts.example.org", Chart: "c", Kind: KindHelm}}}
	key := func(a App) string {
		k, err := a.InputsKey(nil, testRepo, "r")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	moved, multi := a, a
	moved.Instance = "team_x"
	multi.MultiSource = true
	if key(a) == key(moved) || key(a) == key(multi) {
		t.Error("instance name or multi-source left the inputs key unchanged")
	}
}

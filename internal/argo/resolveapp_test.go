package argo

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/gitsource"
)

// treeOpener serves other repositories from memory, counting its opens;
// a URL it does not hold fails as an unreachable remote would.
type treeOpener struct {
	trees map[string]fs.FS
	opens int
}

func (o *treeOpener) Open(_ context.Context, repoURL, revision, _ string) (fs.FS, string, error) {
	o.opens++
	t, ok := o.trees[repoURL+"@"+revision]
	if !ok {
		return nil, "", errors.New("remote unreachable")
	}
	return t, "0123456789abcdef0123456789abcdef01234567", nil
}

// rangeResolver answers every version range with one version.
type rangeResolver struct{ asked []string }

func (r *rangeResolver) ResolveVersion(_ context.Context, _, chart, constraint string) (string, error) {
	r.asked = append(r.asked, chart+" "+constraint)
	return "1.4.2", nil
}

const sharedURL = "https://ci:s3cret@git.example.org/shared.git"

// threeSources: a chart at a version range whose value file is in
// another repository ($values), that repository as a ref source, and a
// directory of this repository.
var threeSources = app("web", `  sources:
  - repoURL: https://charts.example.org
    chart: web
    targetRevision: "1.x"
    helm:
      valueFiles: [$values/envs/qa/web.yaml]
  - repoURL: `+sharedURL+`
    targetRevision: main
    ref: values
  - repoURL: `+testRepo+`
    path: apps/web
`)

// TestResolveSources: argo resolves an app at one revision into what its
// renderers take, so that nothing climbs back into argo or gitsource
// while rendering: another repository read by a `$ref` opened once and
// mounted, each source's revision decided (the chart's range resolved,
// this repository's commit for a path of it), file paths pointing into
// the mount, and messages naming the repository and commit instead of
// the mount directory (without the URL's credentials).
func TestResolveSources(t *testing.T) {
	cfg := testConfig(t)
	fsys := fstest.MapFS{"argocd/qa/m.yaml": {Data: []byte(threeSources)}, "apps/web/cm.yaml": {Data: []byte("kind: ConfigMap\n")}}
	apps, err := Discover(fsys, cfg, "qa")
	if err != nil {
		t.Fatal(err)
	}
	shared := fstest.MapFS{"envs/qa/web.yaml": {Data: []byte("size: large\n")}}
	mount := path.Join(gitsource.MountDir, gitsource.MountKey(sharedURL))
	for _, tc := range []struct {
		name      string
		opener    *treeOpener
		versions  bool
		best      bool
		wantErr   string   // the app's error
		wantSrc0  string   // the chart source's error, "" for a request
		wantAsked []string // version ranges asked for
	}{
		{name: "rendering", opener: &treeOpener{trees: map[string]fs.FS{sharedURL + "@main": shared}}, versions: true,
			wantAsked: []string{"web 1.x"}},
		{name: "no version resolver", opener: &treeOpener{trees: map[string]fs.FS{sharedURL + "@main": shared}},
			wantSrc0: "env qa, app web, chart web version 1.x: version ranges need a chart repository client"},
		{name: "no git fetcher", versions: true,
			wantErr: "env qa, app web: reads repository https://***@git.example.org/shared.git, and no git fetcher is configured"},
		{name: "unreachable repository", opener: &treeOpener{}, versions: true,
			wantErr: `env qa, app web: repository https://***@git.example.org/shared.git at "main": remote unreachable`},
		{name: "best effort leaves it out", opener: &treeOpener{}, versions: true, best: true,
			wantSrc0: "envs/qa/web.yaml of repository " + sharedURL + ": that repository was not fetched"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := AppOptions{Config: cfg, FS: fsys, Revision: "feedbeef", BestEffort: tc.best}
			if tc.opener != nil {
				opt.Repos = tc.opener
			}
			rr := &rangeResolver{}
			if tc.versions {
				opt.Versions = rr
			}
			res, err := apps[0].ResolveSources(context.Background(), opt)
			if tc.wantErr != "" || err != nil {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if strings.Join(rr.asked, ",") != strings.Join(tc.wantAsked, ",") {
				t.Errorf("version ranges asked %q, want %q", rr.asked, tc.wantAsked)
			}
			if len(res.Sources) != 3 {
				t.Fatalf("%d resolutions, want one per source", len(res.Sources))
			}
			if r := res.Sources[1]; r.Request != nil || r.Err != nil {
				t.Errorf("ref source resolved to %+v, want nothing to render", r)
			}
			if d := res.Sources[2].Request; res.Sources[2].Err != nil || d == nil || d.Path != "apps/web" || d.BuildEnv.Revision != "feedbeef" {
				t.Errorf("directory source: %+v, want apps/web at this repository's commit", res.Sources[2])
			}
			src0 := res.Sources[0]
			if tc.wantSrc0 != "" {
				if src0.Err == nil || !strings.Contains(src0.Err.Error(), tc.wantSrc0) {
					t.Errorf("chart source error %v, want %q", src0.Err, tc.wantSrc0)
				}
				return
			}
			h := src0.Request.Helm
			if h.Chart.Version != "1.4.2" || src0.Request.BuildEnv.Revision != "1.4.2" {
				t.Errorf("chart version %q (revision %q), want the range resolved to 1.4.2", h.Chart.Version, src0.Request.BuildEnv.Revision)
			}
			if vf := h.ValueFiles[0]; vf.Path != mount+"/envs/qa/web.yaml" || !vf.InRepo {
				t.Errorf("value file %+v, want it in the mount %s", vf, mount)
			}
			if data, err := fs.ReadFile(res.FS, h.ValueFiles[0].Path); err != nil || string(data) != "size: large\n" {
				t.Errorf("reading the value file through the resolved tree: %q, %v", data, err)
			}
			if tc.opener.opens != 1 {
				t.Errorf("%d opens of the other repository, want 1", tc.opener.opens)
			}
			got := res.Where("open " + mount + "/envs/qa/web.yaml: bad")
			if want := "open https://***@git.example.org/shared.git@0123456789ab:envs/qa/web.yaml: bad"; got != want || !res.Mounted() {
				t.Errorf("Where: %q, want %q", got, want)
			}
		})
	}
}

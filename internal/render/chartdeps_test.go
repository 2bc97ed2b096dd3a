//go:build bundled

package render

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/registry"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// depServers are the repositories dependencies come from, all real and
// on loopback: an HTTPS chart repository (which Argo CD `helm repo add`s),
// a plain HTTP one (which helm adds on the fly), and an OCI registry the
// real helm pushed to.
type depServers struct {
	helm                 string
	https, http, ociHost string
	caFile               string
	client               *http.Client
}

func newDepServers(t *testing.T) *depServers {
	t.Helper()
	s := &depServers{helm: toolbin.Path(t, toolbin.Helm3)}
	serve := func(tls bool, charts map[string][]string) *httptest.Server {
		dir := t.TempDir()
		var srv *httptest.Server
		h := http.FileServer(http.Dir(dir))
		if tls {
			srv = httptest.NewTLSServer(h)
		} else {
			srv = httptest.NewServer(h)
		}
		t.Cleanup(srv.Close)
		for name, versions := range charts {
			for _, v := range versions {
				writeDepChart(t, dir, name, v)
			}
		}
		idx, err := repo.IndexDirectory(dir, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if err := idx.WriteFile(filepath.Join(dir, "index.yaml"), 0o644); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	tlsSrv := serve(true, map[string][]string{"dep-a": {"0.9.0", "1.0.0", "1.1.0", "2.0.0"}})
	s.https, s.client = tlsSrv.URL, tlsSrv.Client()
	s.caFile = filepath.Join(t.TempDir(), "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw})
	if err := os.WriteFile(s.caFile, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	s.http = serve(false, map[string][]string{"dep-b": {"0.3.0", "0.3.5", "0.4.0-rc.1"}}).URL

	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	s.ociHost = strings.TrimPrefix(reg.URL, "http://")
	pushDir := t.TempDir()
	for _, v := range []string{"1.2.3", "1.2.9", "1.3.0"} {
		tgz := writeDepChart(t, pushDir, "dep-c", v)
		if _, err := s.run(t, t.TempDir(), pushDir, "push", tgz, "oci://"+s.ociHost+"/charts", "--plain-http"); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// run runs the helm binary in dir with a private configuration, cache and
// registry login store, as the repo-server does per request.
func (s *depServers) run(t *testing.T, home, dir string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(s.helm, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"HELM_CACHE_HOME=" + home + "/cache", "HELM_CONFIG_HOME=" + home + "/config",
		"HELM_DATA_HOME=" + home + "/data", "KUBECONFIG=" + home + "/no-kubeconfig"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("helm %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes(), nil
}

// argoHelm does what Argo CD's helmTemplate does for an in-repo chart:
// `helm template .`; on helm's missing-dependency error, `helm repo add`
// for each https:// dependency repository, `helm dependency build`, and
// `helm template .` again.
func (s *depServers) argoHelm(t *testing.T, helm string, tree fstest.MapFS, dir string) ([]byte, error) {
	s = &depServers{helm: helm, https: s.https, http: s.http, ociHost: s.ociHost, caFile: s.caFile, client: s.client}
	root := writeTree(t, tree)
	chartDir, home := filepath.Join(root, dir), t.TempDir()
	template := []string{"template", ".", "--name-template", "rel", "--namespace", "ns",
		"--kube-version", DefaultKubeVersion(), "--include-crds"}
	out, err := s.run(t, home, chartDir, template...)
	if err == nil || !strings.Contains(err.Error(), "found in Chart.yaml, but missing in charts/ directory") {
		return out, err
	}
	var meta struct {
		Dependencies []struct{ Repository string } `json:"dependencies"`
	}
	data, _ := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	for _, d := range meta.Dependencies {
		if strings.HasPrefix(d.Repository, "https://") {
			name := strings.ReplaceAll(d.Repository, "/", "-")
			if _, err := s.run(t, home, chartDir, "repo", "add", name, d.Repository, "--ca-file", s.caFile); err != nil {
				return nil, err
			}
		}
	}
	// --plain-http: what Argo CD passes for a registry marked insecure
	if _, err := s.run(t, home, chartDir, "dependency", "build", "--plain-http"); err != nil {
		return nil, err
	}
	return s.run(t, home, chartDir, template...)
}

type depCase struct {
	name    string
	chart   string // Chart.yaml after "apiVersion: v2\nname: parent\nversion: 0.1.0\n"
	extra   map[string]string
	lock    []*chart.Dependency // written as a Chart.lock with helm's digest
	digest  string              // overrides the lock's digest
	wantErr string              // both fail; ours says this
	// versions are "name-version" pairs the output must show, so a
	// wrong resolution cannot pass by agreeing with a broken harness.
	versions []string
	v1       bool // an apiVersion v1 chart, dependencies in requirements.yaml
}

func depCases(s *depServers) []depCase {
	a, b, oci := s.https, s.http, "oci://"+s.ociHost+"/charts"
	dep := func(name, version, repo, more string) string {
		return fmt.Sprintf("- name: %s\n  version: %q\n  repository: %q\n%s", name, version, repo, more)
	}
	return []depCase{
		{name: "ranges, alias, oci, plain http, file and condition", chart: "dependencies:\n" +
			dep("dep-a", "^1.0", a, "") + dep("dep-a", "2.0.0", a+"/", "  alias: dep-a-two\n") +
			dep("dep-c", "~1.2", oci, "") + dep("dep-c", "1.3.0", oci, "  alias: dep-c-exact\n") +
			dep("dep-b", "~0.3", b, "  condition: depb.enabled\n") + dep("common", ">=0.1.0", "file://../common", ""),
			versions: []string{"rel-dep-a\ndata:\n  version: \"1.1.0\"", "rel-dep-a-two\ndata:\n  version: \"2.0.0\"\n  from: \"parent\"",
				"rel-dep-c\ndata:\n  version: \"1.2.9\"", "rel-dep-c-exact\ndata:\n  version: \"1.3.0\"",
				"rel-dep-b\ndata:\n  version: \"0.3.5\"", "rel-common\ndata:\n  version: \"0.1.0\""}},
		{name: "condition false", chart: "dependencies:\n" + dep("dep-b", "~0.3", b, "  condition: depb.off\n")},
		{name: "lock pins older versions", chart: "dependencies:\n" + dep("dep-a", "^1.0", a, "") +
			dep("dep-c", "~1.2", oci, "") + dep("common", ">=0.1.0", "file://../common", ""),
			lock: []*chart.Dependency{{Name: "dep-a", Version: "1.0.0", Repository: a},
				{Name: "dep-c", Version: "1.2.3", Repository: oci}, {Name: "common", Version: "0.1.0", Repository: "file://../common"}},
			versions: []string{"rel-dep-a\ndata:\n  version: \"1.0.0\"", "rel-dep-c\ndata:\n  version: \"1.2.3\""}},
		{name: "lock out of sync", chart: "dependencies:\n" + dep("dep-a", "^1.0", a, ""),
			lock: []*chart.Dependency{{Name: "dep-a", Version: "1.0.0", Repository: a}}, digest: "sha256:0000",
			wantErr: "out of sync"},
		{name: "lock on a repository Argo CD does not add", chart: "dependencies:\n" + dep("dep-b", "~0.3", b, ""),
			lock: []*chart.Dependency{{Name: "dep-b", Version: "0.3.0", Repository: b}}, wantErr: "no repository definition for " + b},
		{name: "outdated archive replaced, vendored chart kept", chart: "dependencies:\n" + dep("dep-a", "^1.0", a, "") +
			dep("vendored", "1.x", "", "") + dep("dep-c", "1.2.3", oci, ""),
			extra: map[string]string{"charts/vendored/Chart.yaml": "apiVersion: v2\nname: vendored\nversion: 1.4.0\n",
				"charts/vendored/templates/cm.yaml": depTemplate, "charts/dep-a-1.0.0.tgz": "@dep-a-1.0.0"},
			versions: []string{"rel-dep-a\ndata:\n  version: \"1.1.0\"", "rel-vendored\ndata:\n  version: \"1.4.0\""}},
		{name: "vendored chart out of range", chart: "dependencies:\n" + dep("dep-a", "^1.0", a, "") + dep("vendored", "2.x", "", ""),
			extra:   map[string]string{"charts/vendored/Chart.yaml": "apiVersion: v2\nname: vendored\nversion: 1.4.0\n"},
			wantErr: "does not satisfy the constraint"},
		{name: "apiVersion v1 chart with requirements.yaml", v1: true, chart: "dependencies:\n" + dep("dep-b", ">=0.3.0-0", b, "") +
			dep("common", "0.1.0", "file://../common", ""),
			versions: []string{"rel-dep-b\ndata:\n  version: \"0.4.0-rc.1\"", "rel-common"}},
		{name: "no version in range", chart: "dependencies:\n" + dep("dep-a", "^3.0", a, ""), wantErr: "can't get a valid version"},
		{name: "missing local chart", chart: "dependencies:\n" + dep("nope", "*", "file://../nope", ""), wantErr: "not found"},
		{name: "helmignore applies to templates and downloaded charts", chart: "dependencies:\n" + dep("dep-a", "^1.0", a, ""),
			extra: map[string]string{".helmignore": "templates/skip.yaml\n", "templates/skip.yaml": "not: [valid"}},
	}
}

func depTree(t *testing.T, c depCase) fstest.MapFS {
	t.Helper()
	chartYAML := "apiVersion: v2\nname: parent\nversion: 0.1.0\n" + c.chart
	tree := fstest.MapFS{
		"charts/parent/Chart.yaml":        {Data: []byte(chartYAML)},
		"charts/parent/values.yaml":       {Data: []byte("depb: {enabled: true, off: false}\ndep-a-two: {from: parent}\n")},
		"charts/parent/templates/cm.yaml": {Data: []byte(depTemplate)},
		"charts/common/Chart.yaml":        {Data: []byte("apiVersion: v2\nname: common\nversion: 0.1.0\n")},
		"charts/common/templates/cm.yaml": {Data: []byte(depTemplate)},
	}
	if c.v1 {
		tree["charts/parent/Chart.yaml"] = &fstest.MapFile{Data: []byte("apiVersion: v1\nname: parent\nversion: 0.1.0\n")}
		tree["charts/parent/requirements.yaml"] = &fstest.MapFile{Data: []byte(c.chart)}
	}
	for name, data := range c.extra {
		if v, ok := strings.CutPrefix(data, "@dep-a-"); ok {
			b, err := os.ReadFile(writeDepChart(t, t.TempDir(), "dep-a", v))
			if err != nil {
				t.Fatal(err)
			}
			data = string(b)
		}
		tree["charts/parent/"+name] = &fstest.MapFile{Data: []byte(data)}
	}
	if c.lock != nil {
		ch, err := loader.LoadFiles([]*loader.BufferedFile{{Name: "Chart.yaml", Data: []byte(chartYAML)}})
		if err != nil {
			t.Fatal(err)
		}
		digest, err := hashDeps(ch.Metadata.Dependencies, c.lock)
		if err != nil {
			t.Fatal(err)
		}
		if c.digest != "" {
			digest = c.digest
		}
		lock, _ := yaml.Marshal(chart.Lock{Digest: digest, Dependencies: c.lock})
		tree["charts/parent/Chart.lock"] = &fstest.MapFile{Data: lock}
	}
	return tree
}

// TestChartDependenciesParity compares an in-repo chart whose
// dependencies are not packaged, built and rendered in process through
// our chart cache, with what the real helm of each major prints after
// Argo CD's `helm dependency build` with that same helm, byte for byte;
// both must fail on the same inputs. A second pass from the disk cache
// alone proves it works offline once cached.
func TestChartDependenciesParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real helm binary against chart repositories on loopback")
	}
	s := newDepServers(t)
	cache := t.TempDir()
	for _, m := range helmMajors {
		t.Run(m.name, func(t *testing.T) {
			bin := toolbin.Path(t, m.tool)
			for _, tc := range depCases(s) {
				t.Run(tc.name, func(t *testing.T) {
					tree := depTree(t, tc)
					want, wantErr := s.argoHelm(t, bin, tree, "charts/parent")
					got, gotErr := s.render(tree, &charts.Client{HTTP: s.client, CacheDir: cache}, m.render)
					if tc.wantErr != "" {
						if wantErr == nil || gotErr == nil || !strings.Contains(gotErr.Error(), tc.wantErr) {
							t.Fatalf("helm: %v\nours: %v\nwant both to fail, ours with %q", wantErr, gotErr, tc.wantErr)
						}
						return
					}
					if wantErr != nil || gotErr != nil {
						t.Fatalf("helm: %v\nours: %v", wantErr, gotErr)
					}
					if d := cmp.Diff(string(want), string(got)); d != "" {
						t.Errorf("differs from helm dependency build + helm template (-helm +ours):\n%s", d)
					}
					if strings.Count(string(got), "kind: ConfigMap") < 2 && tc.name != "condition false" {
						t.Errorf("no dependency rendered:\n%s", got)
					}
					for _, v := range tc.versions {
						if !strings.Contains(string(got), v) {
							t.Errorf("output lacks %s:\n%s", v, got)
						}
					}
				})
			}
		})
	}
	// Offline: every chart fetched above is in the disk cache; locked
	// (exact) versions need nothing else.
	offline := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, fmt.Errorf("network used for %s", r.URL)
	})}
	tc := depCases(s)[2]
	if _, err := s.render(depTree(t, tc), &charts.Client{HTTP: offline, CacheDir: cache}, Helm4); err != nil {
		t.Errorf("locked dependencies from the cache: %v", err)
	}
}

func (s *depServers) render(tree fstest.MapFS, c *charts.Client, helm HelmFunc) ([]byte, error) {
	tgz, err := PackageChartDir(context.Background(), tree, "charts/parent", c)
	if err != nil {
		return nil, err
	}
	return helm(context.Background(), Request{Chart: tgz, ReleaseName: "rel", Namespace: "ns"})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

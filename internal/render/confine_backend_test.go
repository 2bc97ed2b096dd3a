package render

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
)

// TestConfinementResolvesLinks: a path is compared with the root after
// cleaning and resolving links, so neither ../ nor a link planted in the
// copy leads out; a file not written yet is judged by its directory.
func TestConfinementResolvesLinks(t *testing.T) {
	p := plant(t)
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "a", "x.yaml"), "x: 1\n")
	if err := os.Symlink(p.outside, filepath.Join(root, "a", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("x.yaml", filepath.Join(root, "a", "in")); err != nil {
		t.Fatal(err)
	}
	c, err := newConfinement(root)
	if err != nil {
		t.Fatal(err)
	}
	fsys := confinedFS{c: c, disk: nil}
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(root, "a", "x.yaml"), true},
		{filepath.Join(root, "a", "in"), true},
		{filepath.Join(root, "a", "new", "file.yaml"), true},
		{"a/x.yaml", true},
		{filepath.Join(root, "a", "out", "secret.txt"), false},
		{filepath.Join(root, "a", "out", "new.txt"), false},
		{filepath.Join(root, "..", filepath.Base(p.outside), "secret.txt"), false},
		{"/proc/self/environ", false},
		{root + "-sibling/x", false},
		{"", false},
	} {
		_, err := c.check(tc.path)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrOutsideRepo) {
			t.Errorf("%s: err = %v, want ok %v", tc.path, err, tc.ok)
		}
	}
	if fsys.Exists("/proc/self/environ") || fsys.IsDir(p.home) {
		t.Error("a path outside exists for kustomize")
	}
	if c.Refused() == nil || !strings.Contains(c.Refused().Error(), "a/out/secret.txt") && !strings.Contains(c.Refused().Error(), "secret.txt") {
		t.Errorf("first refusal = %v", c.Refused())
	}
	p.untouched(t)
}

// TestKustomizeHelmBackendConfined: the helm commands this process
// answers for kustomize read and write inside the staged copy only: an
// untar directory, a chart or a values file elsewhere is refused naming
// the path, never reading it; kustomize's own values file in its
// temporary directory is the one exception.
func TestKustomizeHelmBackendConfined(t *testing.T) {
	p := plant(t)
	root := t.TempDir()
	for f, mf := range localChart {
		writeTestFile(t, filepath.Join(root, "stage", filepath.FromSlash(f)), string(mf.Data))
	}
	jail, err := newConfinement(filepath.Join(root, "stage"))
	if err != nil {
		t.Fatal(err)
	}
	b := kustomizeHelmBackend{KustomizeHelm: KustomizeHelm{Major: 4, Charts: fakeCharts{chartArchive(t, "evil", "evil")}}, jail: jail}
	chart := filepath.Join(jail.root, "apps", "web", "charts", "local")

	kdir, err := os.MkdirTemp("", kustomizeValuesPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(kdir)
	kvalues := filepath.Join(kdir, "local-kustomize-values.yaml")
	writeTestFile(t, kvalues, "greeting: from-kustomize\n")
	out, err := b.Template(t.Context(), kustomizehelm.Template{Args: []string{"web", chart}, ValueFiles: []string{kvalues}})
	if err != nil || !strings.Contains(string(out), "from-kustomize") {
		t.Fatalf("kustomize's values file: %v\n%s", err, out)
	}

	for _, tc := range []struct {
		name string
		t    kustomizehelm.Template
		want string
	}{
		{"chart outside", kustomizehelm.Template{Args: []string{"web", filepath.Join(p.home, ".docker")}}, filepath.Join(p.home, ".docker")},
		{"values file outside", kustomizehelm.Template{Args: []string{"web", chart}, ValueFiles: []string{p.file}}, p.file},
		{"environ as values", kustomizehelm.Template{Args: []string{"web", chart}, ValueFiles: []string{"/proc/self/environ"}}, "/proc/self/environ"},
		{"another chart's kustomize values", kustomizehelm.Template{Args: []string{"web", chart},
			ValueFiles: []string{filepath.Join(kdir, "other-kustomize-values.yaml")}}, "other-kustomize-values.yaml"},
		{"release name", kustomizehelm.Template{Args: []string{"../x", chart}}, `release name "../x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := b.Template(t.Context(), tc.t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %s\n%s", err, tc.want, out)
			}
			noMarker(t, "output", string(out))
			noMarker(t, "error", err.Error())
		})
	}

	for _, tc := range []struct {
		name string
		pull kustomizehelm.Pull
		want string
	}{
		{"untar into home", kustomizehelm.Pull{Chart: "evil", Repo: "https://charts.example.org", Version: "1.0.0", UntarDir: p.home}, p.home},
		{"untar climbing out", kustomizehelm.Pull{Chart: "evil", Repo: "https://charts.example.org", Version: "1.0.0",
			UntarDir: filepath.Join(jail.root, "..", "..", filepath.Base(p.home))}, "outside the repository"},
		{"chart name", kustomizehelm.Pull{Chart: "../evil", Repo: "https://charts.example.org", Version: "1.0.0", UntarDir: jail.root}, `chart name "../evil"`},
		{"oci chart name", kustomizehelm.Pull{Chart: "oci://r.example.org/charts/..", Version: "1.0.0", UntarDir: jail.root}, `chart name ".."`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := b.Pull(t.Context(), tc.pull)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %s", err, tc.want)
			}
		})
	}
	if err := b.Pull(t.Context(), kustomizehelm.Pull{Chart: "evil", Repo: "https://charts.example.org", Version: "1.0.0",
		UntarDir: filepath.Join(jail.root, "charts")}); err != nil {
		t.Fatalf("a pull into the copy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(jail.root, "charts", "evil", "Chart.yaml")); err != nil {
		t.Errorf("the chart is not where helm puts it: %v", err)
	}
	p.untouched(t)
}

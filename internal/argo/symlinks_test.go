package argo

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/git"
)

// symlinkApps are one app of each kind Argo CD renders from a path of the
// repository, and one chart of a chart repository whose value file is a
// `$ref` to it: the repo-server checks the repository before every one.
const symlinkApps = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: dir}
spec:
  source: {repoURL: ` + testRepo + `, path: apps/dir, targetRevision: HEAD}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: kust}
spec:
  source: {repoURL: ` + testRepo + `, path: apps/kust, targetRevision: HEAD}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: chart}
spec:
  source: {repoURL: ` + testRepo + `, path: apps/chart, targetRevision: HEAD}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ref}
spec:
  sources:
  - {repoURL: ` + testRepo + `, targetRevision: HEAD, ref: values}
  - repoURL: https://charts.example.org
    chart: web
    targetRevision: 1.0.0
    helm: {valueFiles: [$values/apps/dir/values.yaml]}
`

// TestOutOfBoundsSymlinks: a real git repository holding a link to /etc,
// or to ../outside, anywhere (not only below the app's path), fails every
// app rendered from it with Argo CD's words naming the link; links that
// stay inside, even dangling, do not. A chart of a chart repository
// without a `$ref` to the repository is not checked against it.
func TestOutOfBoundsSymlinks(t *testing.T) {
	base := t.TempDir()
	if err := os.WriteFile(filepath.Join(base, "outside"), []byte("OUTSIDE-MARKER-5121\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		links map[string]string // link -> target
		want  string            // "" renders
	}{
		{"links inside", map[string]string{"apps/dir/copy.yaml": "cm.yaml", "shared": "apps/dir", "dangling": "nowhere/x"}, ""},
		{"absolute to /etc", map[string]string{"etc": "/etc"}, "file: etc"},
		{"up to ../outside", map[string]string{"docs/outside": "../../outside"}, "file: docs/outside"},
		{"out and back in", map[string]string{"apps/dir/back.yaml": "../../../repo/apps/dir/cm.yaml"}, "file: apps/dir/back.yaml"},
		{"in the app's own path", map[string]string{"apps/kust/passwd": "/etc/passwd"}, "file: apps/kust/passwd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repo")
			files := map[string]string{
				"argocd/qa/apps.yaml":             symlinkApps,
				"apps/dir/cm.yaml":                "kind: ConfigMap\n",
				"apps/dir/values.yaml":            "{}\n",
				"apps/kust/kustomization.yaml":    "resources: [cm.yaml]\n",
				"apps/kust/cm.yaml":               "kind: ConfigMap\n",
				"apps/chart/Chart.yaml":           "name: c\nversion: 1.0.0\n",
				"apps/chart/templates/empty.yaml": "",
				"docs/readme.md":                  "x\n",
			}
			for p, data := range files {
				writeFile(t, filepath.Join(dir, p), data)
			}
			for link, target := range tc.links {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			fsys := commitTree(t, dir)
			cfg := testConfig(t)
			apps, err := Discover(fsys, cfg, "qa")
			if err != nil {
				t.Fatal(err)
			}
			if len(apps) != 4 {
				t.Fatalf("%d apps", len(apps))
			}
			for _, a := range apps {
				for _, src := range a.Sources {
					_, err := a.Resolve(src, ResolveOptions{Config: cfg, FS: fsys, Revision: "HEAD"})
					if tc.want == "" || src.Kind == KindRef {
						if err != nil {
							t.Errorf("app %s: %v", a.Name, err)
						}
						continue
					}
					want := "env qa, app " + a.Name + ": repository contains out-of-bounds symlinks. " + tc.want
					if err == nil || err.Error() != want || !errors.Is(err, ErrOutOfBoundsSymlink) {
						t.Errorf("app %s: err = %v\nwant %s", a.Name, err, want)
					}
					if err != nil && strings.Contains(err.Error(), "OUTSIDE-MARKER") {
						t.Errorf("app %s: the error shows the target's content", a.Name)
					}
				}
			}
		})
	}
}

// TestCheckSymlinksLexically: Argo CD's element-by-element rule on
// targets, below a root that is not the tree's.
func TestCheckSymlinksLexically(t *testing.T) {
	for _, tc := range []struct {
		from, target string
		out          bool
	}{
		{".", "a/b", false},
		{"a", "../b", false},
		{"a", "../../b", true},
		{"a/b", "../../a/../c", false},
		{"a", "../../repo/a", true},
		{".", "..", true},
		{"a", "./../x/../..", true},
	} {
		if got := leaves(tc.from, tc.target); got != tc.out {
			t.Errorf("leaves(%q, %q) = %v, want %v", tc.from, tc.target, got, tc.out)
		}
	}
	mounted := fstest.MapFS{
		".argocd-repos/k/apps/x.yaml": {Data: []byte("kind: ConfigMap\n")},
		".argocd-repos/k/apps/up":     {Data: []byte("../../../escape"), Mode: os.ModeSymlink},
		".argocd-repos/k/apps/ok":     {Data: []byte("../apps/x.yaml"), Mode: os.ModeSymlink},
	}
	err := CheckSymlinks(mounted, ".argocd-repos/k")
	var se *SymlinkError
	if !errors.As(err, &se) || se.File != "apps/up" {
		t.Errorf("err = %v, want the link apps/up named from its repository's root", err)
	}
	delete(mounted, ".argocd-repos/k/apps/up")
	if err := CheckSymlinks(mounted, ".argocd-repos/k"); err != nil {
		t.Errorf("inside: %v", err)
	}
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitTree commits dir with the git CLI and returns the commit's tree
// as manifestdiff reads it (internal/git's view).
func commitTree(t *testing.T, dir string) fs.FS {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "tree"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo, err := git.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := repo.TreeFS(h)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestOutOfBoundsSymlinkChangesInputsKey: an app whose own files are the
// same at two revisions still changes its inputs key when a link out of
// the repository appears elsewhere in it: Argo CD then renders it no more.
func TestOutOfBoundsSymlinkChangesInputsKey(t *testing.T) {
	keys := map[bool]string{}
	for _, link := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "repo")
		writeFile(t, filepath.Join(dir, "argocd/qa/apps.yaml"), symlinkApps)
		writeFile(t, filepath.Join(dir, "apps/dir/cm.yaml"), "kind: ConfigMap\n")
		writeFile(t, filepath.Join(dir, "docs/readme.md"), "x\n")
		if link {
			if err := os.Symlink("/etc", filepath.Join(dir, "docs", "etc")); err != nil {
				t.Fatal(err)
			}
		}
		fsys := commitTree(t, dir)
		cfg := testConfig(t)
		apps, err := Discover(fsys, cfg, "qa")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range apps {
			if a.Name == "dir" {
				if keys[link], err = a.InputsKey(fsys, testRepo, "HEAD"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if keys[false] == "" || keys[false] == keys[true] {
		t.Errorf("keys without and with the link: %q, %q", keys[false], keys[true])
	}
}

package render

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/git"
)

// TestDirectoryAndJsonnetStayInTheRepository: a directory source and its
// Jsonnet (import, importstr, importbin, library paths) read the
// repository's tree at the revision, as manifestdiff reads it from git,
// and nothing else: an absolute path, ../ past the root and a link
// leading out find nothing, so the marker beside the repository, in
// $HOME and in the environment shows nowhere and the Jsonnet fails.
func TestDirectoryAndJsonnetStayInTheRepository(t *testing.T) {
	p := plant(t)
	up := strings.Repeat("../", 24)
	dir := filepath.Join(t.TempDir(), "repo")
	files := map[string]string{
		"lib/ok.libsonnet":          "{ name: 'fine' }\n",
		"apps/ok/main.jsonnet":      "local l = import 'lib/ok.libsonnet'; { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: l.name } }\n",
		"apps/abs/main.jsonnet":     "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { s: importstr '" + p.file + "' } }\n",
		"apps/up/main.jsonnet":      "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { s: importstr '" + up + p.file[1:] + "' } }\n",
		"apps/virt/main.jsonnet":    "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { s: importstr '/_repo/../" + p.file[1:] + "' } }\n",
		"apps/environ/main.jsonnet": "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { s: std.toString(importbin '/proc/self/environ') } }\n",
		"apps/import/main.jsonnet":  "import '" + p.home + "/.docker/config.json'\n",
		"apps/link/main.jsonnet":    "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { s: importstr 'out/secret.txt' } }\n",
		"apps/rellink/main.jsonnet": "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { s: importstr 'up/secret.txt' } }\n",
		"apps/yaml/cm.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n",
		"apps/libs/main.jsonnet":    "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { s: importstr 'secret.txt' } }\n",
	}
	for f, data := range files {
		writeTestFile(t, filepath.Join(dir, filepath.FromSlash(f)), data)
	}
	rel, err := filepath.Rel(filepath.Join(dir, "apps", "rellink"), p.outside)
	if err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"apps/link/out":       p.outside,
		"apps/rellink/up":     rel,
		"apps/yaml/leak.yaml": p.file,
		"apps/yaml/up.yaml":   filepath.Join(up, p.file[1:]),
		"apps/yaml/home":      p.home,
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	tree := gitTree(t, dir)

	out, err := DirectoryWithJsonnet(tree, "apps/ok", false, "", "", &argo.JsonnetOptions{Libs: []string{"."}})
	if err != nil || !strings.Contains(string(out), "name: fine") {
		t.Fatalf("an import inside the repository: %v\n%s", err, out)
	}
	out, err = Directory(tree, "apps/yaml", true, "", "")
	if err != nil || !strings.Contains(string(out), "name: plain") {
		t.Fatalf("plain manifests beside links leading out: %v\n%s", err, out)
	}
	noMarker(t, "directory output", string(out))

	for _, tc := range []struct {
		dir  string
		libs []string
		want string
	}{
		{"apps/abs", nil, "couldn't open import"},
		{"apps/up", nil, "couldn't open import"},
		{"apps/virt", nil, "couldn't open import"},
		{"apps/environ", nil, "couldn't open import"},
		{"apps/import", nil, "couldn't open import"},
		{"apps/link", nil, "couldn't open import"},
		{"apps/rellink", nil, "couldn't open import"},
		{"apps/libs", []string{p.outside}, "couldn't open import"},
		{"apps/libs", []string{up + p.outside[1:]}, "outside repository root"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			out, err := DirectoryWithJsonnet(tree, tc.dir, false, "", "", &argo.JsonnetOptions{Libs: tc.libs})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q\n%s", err, tc.want, out)
			}
			noMarker(t, "output", string(out))
			noMarker(t, "error", err.Error())
		})
	}
	p.untouched(t)
}

// gitTree commits dir with the git CLI and returns the commit's tree as
// manifestdiff reads it (internal/git's view).
func gitTree(t *testing.T, dir string) fs.FS {
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
	tree, err := repo.TreeFS(h)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

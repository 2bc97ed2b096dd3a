package parity

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// corpus is one git repository of apps both renderers read.
type corpus struct {
	name    string
	dir     string // work tree, one commit on main
	repoURL string // the URL its apps name it by
	envs    []string
}

// promoteYAML is the .promote.yaml of a corpus this suite writes.
func promoteYAML(repoURL string, envs []string, extra string) string {
	return fmt.Sprintf(`repoURL: %s
environments: [%s]
versions: versions/{env}.yaml
manifests:
  - argocd/{env}/*.yaml
components:
  app.version: {chart: none}
%s`, repoURL, strings.Join(envs, ", "), extra)
}

// generatedCorpus is the fleet of our users' layout
// (scripts/gen_gitops_repo.py), its charts served on loopback.
func generatedCorpus(t *testing.T, g *gitHost, root string) corpus {
	out := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	t.Cleanup(srv.Close)
	gen := filepath.Join(root, "scripts", "gen_gitops_repo.py")
	run(t, "", "python3", gen, "--out", out, "--nodes", "10", "--envs", "qa,preprod,prod", "--helm-url", srv.URL+"/charts", "--git")
	dir := filepath.Join(out, "repo")
	g.publish(t, "generated", dir, "https://gitlab.example.com/org/gitops-repo.git")
	return corpus{name: "generated", dir: dir, repoURL: g.repoURL("generated"), envs: []string{"qa", "preprod", "prod"}}
}

// e2eCorpus is every app directory of Argo CD's end-to-end tests
// (test/e2e/testdata of the argo-cd module, Apache-2.0, read from the
// module cache, not shipped), each an Application of env e2e reading it
// by path, as those tests create them.
func e2eCorpus(t *testing.T, g *gitHost, argoDir string) corpus {
	url := g.repoURL("argocd-e2e")
	dir := t.TempDir()
	src := filepath.Join(argoDir, "test", "e2e", "testdata")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		copyTree(t, filepath.Join(src, e.Name()), filepath.Join(dir, "apps", e.Name()))
		write(t, filepath.Join(dir, "argocd", "e2e", e.Name()+".yaml"), application("e2e-"+e.Name(), url, "apps/"+e.Name()))
	}
	write(t, filepath.Join(dir, ".promote.yaml"), promoteYAML(url, []string{"e2e"},
		// out of order and repeated, as a hand-written list is: both
		// must reach Helm as the cluster's sorted set
		"kubeVersion: v1.33.2\napiVersions: [monitoring.coreos.com/v1, apps/v1, v1, batch/v1, apps/v1]\n"))
	g.publish(t, "argocd-e2e", dir)
	return corpus{name: "argocd-e2e", dir: dir, repoURL: url, envs: []string{"e2e"}}
}

// appSetCorpus is the ApplicationSet examples of Argo CD's docs
// (applicationset/examples of the argo-cd module, Apache-2.0) whose
// generators read only git and lists: each example an env of its own,
// the examples' tree served as the repository they name.
func appSetCorpus(t *testing.T, g *gitHost, argoDir string) corpus {
	url := g.repoURL("appset-examples")
	dir := t.TempDir()
	src := filepath.Join(argoDir, "applicationset", "examples")
	copyTree(t, src, filepath.Join(dir, "applicationset", "examples"))
	var envs []string
	unsupported := regexp.MustCompile(`(?m)^\s*-?\s*(clusters|scmProvider|pullRequest|clusterDecisionResource|plugin):`)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), "kind: ApplicationSet") || unsupported.Match(data) {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		env := strings.NewReplacer("/", ".", ".yaml", "").Replace(rel)
		envs = append(envs, env)
		write(t, filepath.Join(dir, "argocd", env, "appset.yaml"), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".promote.yaml"), promoteYAML(url, envs, ""))
	g.publish(t, "appset-examples", dir, "https://github.com/argoproj/argo-cd.git", "https://github.com/argoproj/argo-cd")
	return corpus{name: "appset-examples", dir: dir, repoURL: url, envs: envs}
}

// casesCorpus is this suite's own cases (testdata/cases): the classes
// the issue named and their kin, each a directory and an Application.
func casesCorpus(t *testing.T, g *gitHost) corpus {
	url := g.repoURL("cases")
	dir := t.TempDir()
	copyTree(t, filepath.Join("testdata", "cases"), dir)
	g.publish(t, "cases", dir, "https://git.example.com/parity-cases.git")
	return corpus{name: "cases", dir: dir, repoURL: url, envs: []string{"cases"}}
}

func application(name, repoURL, path string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: %s
  namespace: argocd
spec:
  project: default
  source:
    repoURL: %s
    targetRevision: HEAD
    path: %s
  destination:
    server: https://kubernetes.default.svc
    namespace: parity
`, name, repoURL, path)
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Package parity is the Argo CD parity suite: every app of every corpus
// rendered by manifestdiff and by Argo CD v3.6's own code, compared
// object by object. It is a module of its own (Argo CD needs Go 1.27 and
// its own dependency versions); `make test-argocd` runs it.
package parity

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// minApps is how many apps the corpora must hold together.
const minApps = 200

func TestParity(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	argoDir := strings.TrimSpace(run(t, "", "go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3"))
	g := newGitHost(t)
	corpora := []corpus{generatedCorpus(t, g, root), e2eCorpus(t, g, argoDir), appSetCorpus(t, g, argoDir), casesCorpus(t, g)}
	setupRepoServerEnv(t, argoDir)
	a := newArgoCD(t)
	cache := t.TempDir()
	total := 0
	var found []difference
	for _, c := range corpora {
		n, diffs := compareCorpus(t, a, c, cache)
		t.Logf("%s: %d apps, %d differences", c.name, n, len(diffs))
		total += n
		found = append(found, diffs...)
	}
	used := map[int]int{}
	refused := 0
	for _, d := range found {
		if d.class == refusedByBoth {
			refused++
			t.Logf("%s", d)
			continue
		}
		if i := byDesign(d); i >= 0 {
			used[i]++
			continue
		}
		t.Errorf("%s", d)
	}
	for i, b := range byDesignTable {
		t.Logf("by design (%d): %s: %s", used[i], b.class, b.reason)
		if used[i] == 0 {
			t.Errorf("by-design row %q (%s) matched nothing: remove it or fix the corpus", b.class, b.app)
		}
	}
	if total < minApps {
		t.Errorf("the corpora hold %d apps, want at least %d", total, minApps)
	}
	t.Logf("%d apps compared, %d of them refused by both", total, refused)
}

// setupRepoServerEnv gives the in-process repo-server what its container
// has: helm and kustomize of the versions Argo CD bundles, its git
// wrappers, an empty git configuration and Helm homes of its own.
func setupRepoServerEnv(t *testing.T, argoDir string) {
	tools := mustEnv(t, "PARITY_TOOLS")
	wrappers := t.TempDir()
	for _, w := range []string{"git-verify-wrapper.sh", "gpg-wrapper.sh"} {
		data, err := os.ReadFile(filepath.Join(argoDir, "hack", w))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(wrappers, w), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", tools+string(os.PathListSeparator)+wrappers+string(os.PathListSeparator)+os.Getenv("PATH"))
	gc := filepath.Join(t.TempDir(), "gitconfig")
	write(t, gc, "")
	t.Setenv("GIT_CONFIG_GLOBAL", gc)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HELM_CACHE_HOME", t.TempDir())
	t.Setenv("HELM_CONFIG_HOME", t.TempDir())
	t.Setenv("HELM_DATA_HOME", t.TempDir())
	if out, err := exec.Command("helm", "version", "--short").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "v4.3.") {
		t.Fatalf("helm on PATH is %q (%v), want Argo CD 3.6's v4.3.x", out, err)
	}
}

// argoApps is every Application of c's env as Argo CD has it: the
// Applications of argocd/<env>/, and the ones its ApplicationSets
// generate. A set that fails stands under its own name.
func argoApps(t *testing.T, a *argoCD, c corpus, env string) (map[string]*v1alpha1.Application, map[string]error) {
	apps, fails := map[string]*v1alpha1.Application{}, map[string]error{}
	files, _ := filepath.Glob(filepath.Join(c.dir, "argocd", env, "*.yaml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range splitDocs(string(data)) {
			var head struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil || head.Kind == "" {
				continue
			}
			switch head.Kind {
			case "Application":
				var app v1alpha1.Application
				if err := yaml.Unmarshal([]byte(doc), &app); err != nil {
					fails[filepath.Base(f)] = err
					continue
				}
				apps[app.Name] = &app
			case "ApplicationSet":
				var set v1alpha1.ApplicationSet
				if err := yaml.Unmarshal([]byte(doc), &set); err != nil {
					fails[filepath.Base(f)] = err
					continue
				}
				gen, err := a.expand(set)
				if err != nil {
					fails[set.Name] = err
					continue
				}
				for i := range gen {
					apps[gen[i].Name] = &gen[i]
				}
			}
		}
	}
	return apps, fails
}

func splitDocs(s string) []string {
	var docs []string
	for _, d := range strings.Split("\n"+s, "\n---") {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

// compareCorpus renders every app of c both ways and returns how many
// apps it compared and every difference.
func compareCorpus(t *testing.T, a *argoCD, c corpus, cache string) (int, []difference) {
	our := ours(t, c.dir, "HEAD", cache)
	byKey := map[string]ourApp{}
	for _, app := range our.Apps {
		byKey[app.Env+"/"+app.Name] = app
	}
	type job struct {
		env, name string
		app       *v1alpha1.Application
	}
	var jobs []job
	var diffs []difference
	for _, env := range c.envs {
		apps, fails := argoApps(t, a, c, env)
		for name, err := range fails {
			if o, ok := byKey[env+"/"+name]; !ok || o.Error == "" {
				diffs = append(diffs, difference{corpus: c.name, env: env, app: name, class: "error only in Argo CD", detail: err.Error()})
			}
			delete(byKey, env+"/"+name)
		}
		for name, app := range apps {
			jobs = append(jobs, job{env, name, app})
		}
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].env+"/"+jobs[i].name < jobs[j].env+"/"+jobs[j].name })
	// first every render, so that each env's scope knows its CRDs
	raw := make([][]*unstructured.Unstructured, len(jobs))
	errs := make([]error, len(jobs))
	each(len(jobs), func(i int) { raw[i], errs[i] = a.generate(context.Background(), jobs[i].app, our.Deployment) })
	scopes := map[string]scope{}
	for i, j := range jobs {
		if scopes[j.env] == nil {
			scopes[j.env] = scope{}
		}
		for _, u := range raw[i] {
			scopes[j.env].learn(u)
		}
	}
	results := make([][]difference, len(jobs))
	each(len(jobs), func(i int) {
		j := jobs[i]
		o, ok := byKey[j.env+"/"+j.name]
		if !ok {
			results[i] = []difference{{corpus: c.name, env: j.env, app: j.name, class: "app missing in manifestdiff"}}
			return
		}
		objs, warnings, err := raw[i], []string(nil), errs[i]
		if err == nil {
			objs, warnings, err = normalize(j.app, our.Deployment, objs, scopes[j.env])
		}
		results[i] = compareApp(c.name, o, objs, warnings, err)
		if hasContent(results[i]) {
			// a value the chart generates differs between any two
			// renders, Argo CD's own included: not a difference
			again, err := a.generate(context.Background(), j.app, our.Deployment)
			if err == nil {
				again, _, err = normalize(j.app, our.Deployment, again, scopes[j.env])
			}
			if err == nil {
				results[i] = dropGenerated(results[i], objs, again)
			}
		}
	})
	for _, j := range jobs {
		delete(byKey, j.env+"/"+j.name)
	}
	for _, r := range results {
		diffs = append(diffs, r...)
	}
	for k, o := range byKey {
		env, name, _ := strings.Cut(k, "/")
		diffs = append(diffs, difference{corpus: c.name, env: env, app: name, class: "app only in manifestdiff", detail: o.Error})
	}
	return len(jobs), diffs
}

// each runs f(i) for i in [0, n) on four goroutines: the repo-server
// runs helm and kustomize as processes.
func each(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

package manifestdiff

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/testutil/chartpack"
)

// exampleFleet loads examples/fleet into a MapFS: a revision's tree,
// without git, so each test can derive the other revision by editing a
// copy.
func exampleFleet(t *testing.T) fstest.MapFS {
	t.Helper()
	src := os.DirFS(filepath.Join("..", "..", "examples", "fleet"))
	m := fstest.MapFS{}
	err := fs.WalkDir(src, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := fs.ReadFile(src, p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tree is a revision under construction.
type tree struct {
	t *testing.T
	m fstest.MapFS
}

// derive copies m so edits leave the other revision alone.
func derive(t *testing.T, m fstest.MapFS) *tree {
	out := fstest.MapFS{}
	for k, v := range m {
		out[k] = &fstest.MapFile{Data: slices.Clone(v.Data)}
	}
	return &tree{t, out}
}

// edit replaces old with new in name, failing if old is absent so a
// drifting example cannot silently void a test.
func (tr *tree) edit(name, old, new string) *tree {
	tr.t.Helper()
	f := tr.m[name]
	if f == nil || !bytes.Contains(f.Data, []byte(old)) {
		tr.t.Fatalf("%s does not contain %q", name, old)
	}
	f.Data = bytes.ReplaceAll(f.Data, []byte(old), []byte(new))
	return tr
}

func (tr *tree) write(name, content string) *tree {
	tr.m[name] = &fstest.MapFile{Data: []byte(content)}
	return tr
}

// remove deletes a file or every file under a directory.
func (tr *tree) remove(name string) *tree {
	for k := range tr.m {
		if k == name || strings.HasPrefix(k, name+"/") {
			delete(tr.m, k)
		}
	}
	return tr
}

// fetcher serves the example charts, packaged in the test like
// scripts/package_charts.py does, and counts every Fetch by
// "chart@version": the charts interface is where a render begins, so a
// count of zero proves nothing was rendered.
type fetcher struct {
	mu      sync.Mutex
	calls   map[string]int
	repos   map[string]bool // repoURLs asked for
	archive map[string][]byte
}

func newFetcher() *fetcher {
	return &fetcher{calls: map[string]int{}, repos: map[string]bool{}, archive: map[string][]byte{}}
}

func (f *fetcher) Fetch(_ context.Context, repoURL, chart, version string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := chart + "@" + version
	f.calls[key]++
	f.repos[repoURL] = true
	if data, ok := f.archive[key]; ok {
		return data, nil
	}
	dir := filepath.Join("..", "..", "examples", "charts", chart)
	vs, err := os.ReadFile(filepath.Join(dir, "versions"))
	if err != nil || !slices.Contains(strings.Fields(string(vs)), version) {
		return nil, fmt.Errorf("chart %s version %s not found in %s", chart, version, repoURL)
	}
	data, err := chartpack.Package(os.DirFS(dir), chart, version)
	f.archive[key] = data
	return data, err
}

func (f *fetcher) counts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.calls)
}

// run diffs base against head with a fresh fetcher.
func run(t *testing.T, base, head fstest.MapFS, parallel int) (report.Report, *fetcher, error) {
	t.Helper()
	cfg, err := config.Parse(head[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	f := newFetcher()
	d := &Diff{Config: cfg, Charts: f, Parallel: parallel,
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head}}
	rep, err := d.Run(context.Background())
	return rep, f, err
}

// statuses maps "env/app" to status, for the apps not in skip status.
func statuses(rep report.Report, skip string) map[string]string {
	m := map[string]string{}
	for _, a := range rep.Apps {
		if a.Status != skip {
			m[a.Env+"/"+a.Name] = a.Status
		}
	}
	return m
}

func findApp(t *testing.T, rep report.Report, env, name string) report.App {
	t.Helper()
	for _, a := range rep.Apps {
		if a.Env == env && a.Name == name {
			return a
		}
	}
	t.Fatalf("no app %s/%s in the report", env, name)
	return report.App{}
}

//go:build live

package manifestdiff

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/kube"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/testutil/kubeserver"
)

// liveRepo is a repository written by the project's generator
// (scripts/gen_gitops_repo.py, the layout of our users' spec), with its
// packaged charts.
type liveRepo struct {
	fs     fstest.MapFS
	charts string
}

// generateRepo runs the bench generator for two nodes in qa and preprod,
// and makes qa (and, through an unreachable context, preprod) live envs.
func generateRepo(t *testing.T) liveRepo {
	t.Helper()
	gen, err := filepath.Abs(filepath.Join("..", "..", "scripts", "gen_gitops_repo.py"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command("python3", gen, "--out", out, "--nodes", "2", "--envs", "qa,preprod", "--helm-url", "http://127.0.0.1:9/charts")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gen, err, b)
	}
	src := os.DirFS(filepath.Join(out, "repo"))
	m := fstest.MapFS{}
	err = fs.WalkDir(src, ".", func(p string, e fs.DirEntry, err error) error {
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
	cfg := m[config.FileName]
	cfg.Data = append(cfg.Data, []byte("live: [qa, {env: preprod, context: unreachable}]\n")...)
	return liveRepo{fs: m, charts: filepath.Join(out, "charts")}
}

// dirCharts serves <chart>-<version>.tgz from a directory, as --charts-dir.
type dirCharts string

func (d dirCharts) Fetch(_ context.Context, _, chart, version string) ([]byte, error) {
	return os.ReadFile(filepath.Join(string(d), chart+"-"+version+".tgz"))
}

// crds are what the generated repo's objects need besides the built-in
// kinds: Argo CD's own, and the platform's ProjectApplicationTemplate.
var crds = []struct{ group, kind, plural string }{
	{"argoproj.io", "Application", "applications"},
	{"argoproj.io", "ApplicationSet", "applicationsets"},
	{"platform.example.com", "ProjectApplicationTemplate", "projectapplicationtemplates"},
}

func crd(group, kind, plural string) map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"kind": kind, "plural": plural, "singular": strings.ToLower(kind), "listKind": kind + "List"},
			"versions": []any{map[string]any{
				"name": "v1alpha1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}
}

// renderEnv renders every app of env at a revision, as manifestdiff does.
func renderEnv(t *testing.T, repo liveRepo, fsys fstest.MapFS, env string) map[string][]diff.Resource {
	t.Helper()
	cfg, err := config.Parse(fsys[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	apps, err := argo.Discover(fsys, cfg, env)
	if err != nil {
		t.Fatal(err)
	}
	d := &Diff{Config: cfg, Charts: dirCharts(repo.charts)}
	out := map[string][]diff.Resource{}
	for i := range apps {
		m, track, note, _, err := d.renderApp(context.Background(), &apps[i], Side{Name: "sync", Rev: "s", FS: fsys})
		if err != nil || note != "" {
			t.Fatalf("rendering %s: %v %s", apps[i].Name, err, note)
		}
		rs, err := parseManifests(m, apps[i].Namespace, track)
		if err != nil {
			t.Fatal(err)
		}
		out[apps[i].Name] = rs
		out["\x00ns:"+apps[i].Namespace] = nil
	}
	return out
}

// syncEnv applies env's render to the cluster as an Argo CD sync with
// server-side apply does: destination namespaces, CRDs, then every object
// but hooks, under Argo CD's field manager.
func syncEnv(t *testing.T, c *kubeserver.Client, repo liveRepo, fsys fstest.MapFS, env string) {
	t.Helper()
	ctx := context.Background()
	rendered := renderEnv(t, repo, fsys, env)
	var names []string
	for k := range rendered {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if ns, ok := strings.CutPrefix(k, "\x00ns:"); ok && ns != "" {
			mustApply(t, c, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}, "setup")
		}
	}
	for _, d := range crds {
		mustApply(t, c, crd(d.group, d.kind, d.plural), "setup")
		if err := c.WaitEstablished(ctx, schema.GroupVersionKind{Group: d.group, Version: "v1alpha1", Kind: d.kind}); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range names {
		for _, r := range rendered[k] {
			if a, _ := r.Object["metadata"].(map[string]any)["annotations"].(map[string]any); a["argocd.argoproj.io/hook"] != nil {
				continue
			}
			mustApply(t, c, r.Object, kube.Manager)
		}
	}
}

func mustApply(t *testing.T, c *kubeserver.Client, obj map[string]any, manager string) {
	t.Helper()
	if err := c.Apply(context.Background(), obj, manager); err != nil {
		t.Fatalf("applying %v %v: %v", obj["kind"], obj["metadata"].(map[string]any)["name"], err)
	}
}

// liveRun runs a live manifestdiff of base against head.
func liveRun(t *testing.T, repo liveRepo, base, head fstest.MapFS, kubeconfig, context string, envs ...string) (report.Report, error) {
	t.Helper()
	rep, _, err := liveRunLogged(t, repo, base, head, kubeconfig, context, envs...)
	return rep, err
}

// liveRunLogged is liveRun with what it logs, and fails the test if
// anything is written to the process's stderr meanwhile: every message
// of the run goes through its Log. Base renders and finds live objects
// with its own deployment settings, as the command gives it (head's
// config with base's argocd block).
func liveRunLogged(t *testing.T, repo liveRepo, base, head fstest.MapFS, kubeconfig, context string, envs ...string) (report.Report, []string, error) {
	t.Helper()
	cfg, err := config.Parse(head[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	dep, err := config.ParseDeployment(base[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	logged := newLines()
	d := &Diff{Config: cfg, Charts: dirCharts(repo.charts), Envs: envs, Parallel: 4,
		Base: Side{Name: "main", Rev: "b", FS: base, Config: cfg.WithDeployment(dep)}, Head: Side{Name: "mr", Rev: "h", FS: head},
		Live: &Live{Kube: kube.Options{Kubeconfig: kubeconfig, Context: context}},
		Log:  slog.New(logged)}
	var rep report.Report
	stderr := captureStderr(t, func() { rep, err = d.Run(t.Context()) })
	if stderr != "" {
		t.Errorf("the run wrote to stderr, not through its Log:\n%s", stderr)
	}
	return rep, logged.get(), err
}

// lines is a slog handler keeping each record as "LEVEL env qa: message".
type lines struct {
	store *lineStore
	attrs []slog.Attr
}

type lineStore struct {
	mu   sync.Mutex
	list []string
}

func newLines() *lines { return &lines{store: &lineStore{}} }

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) WithGroup(string) slog.Handler            { return l }

func (l *lines) WithAttrs(as []slog.Attr) slog.Handler {
	return &lines{store: l.store, attrs: append(slices.Clone(l.attrs), as...)}
}

func (l *lines) Handle(_ context.Context, r slog.Record) error {
	var where []string
	for _, a := range l.attrs {
		where = append(where, a.Key+" "+a.Value.String())
	}
	r.Attrs(func(a slog.Attr) bool { where = append(where, a.Key+" "+a.Value.String()); return true })
	l.store.mu.Lock()
	defer l.store.mu.Unlock()
	l.store.list = append(l.store.list, r.Level.String()+" "+strings.Join(where, ", ")+": "+r.Message)
	return nil
}

func (l *lines) get() []string {
	l.store.mu.Lock()
	defer l.store.mu.Unlock()
	return slices.Clone(l.store.list)
}

// captureStderr runs fn with os.Stderr, where client-go's default
// warning handler and klog write, redirected, and returns what was
// written there.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stderr = old }()
	fn()
	os.Stderr = old
	w.Close()
	return <-done
}

// liveIndex maps "app|section|action|Kind ns/name" to the resource, for
// assertions; section is "change" or "drift".
func liveIndex(t *testing.T, rep report.Report) map[string]report.LiveResource {
	t.Helper()
	m := map[string]report.LiveResource{}
	for _, a := range rep.Apps {
		if a.Live == nil {
			continue
		}
		for sec, list := range map[string][]report.LiveResource{"change": a.Live.Changes, "drift": a.Live.Drift} {
			for _, r := range list {
				m[fmt.Sprintf("%s|%s|%s|%s %s/%s", a.Name, sec, r.Action, r.Kind, r.Namespace, r.Name)] = r
			}
		}
	}
	return m
}

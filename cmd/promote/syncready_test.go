package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
	"github.com/gitops-promote/gitops-promote/internal/testutil/chartpack"
	"github.com/gitops-promote/gitops-promote/internal/testutil/chartsrv"
)

// The syncReady gate and check --rendered run the real manifestdiff (its
// release build, linked once per test process and only when such a test
// runs), against a real git repository and a real chart repository on
// loopback.
func manifestdiffBinary(t *testing.T) string {
	t.Helper()
	return clitest.BuildRelease(t, "../..", "./cmd/manifestdiff")
}

// Templates a ledger-api chart version may add, each breaking prod.
const (
	// the example AppProjects have no clusterResourceWhitelist: Argo CD
	// then permits no cluster-scoped object
	clusterRoleTemplate = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {{ .Release.Name }}-reader\nrules: []\n"
	// extensions/v1beta1 Ingress is served by no Kubernetes since 1.22
	removedAPITemplate = "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: {{ .Release.Name }}\nspec: {}\n"
)

// readyFleet is the example fleet with the prod gate syncReady (mode),
// its charts (and AppProjects) on a real loopback chart repository where
// ledger-api 1.3.1, the version a preprod -> prod promotion brings, also
// renders extra (none when ""); XDG_CACHE_HOME keeps manifestdiff's chart
// cache in the test. It returns the fleet and the environment of runs.
func readyFleet(t *testing.T, mode, extra string) (*fleet, map[string]string) {
	t.Helper()
	bin := manifestdiffBinary(t)
	charts := chartsrv.Examples(t, "../../examples/charts")
	if extra != "" {
		src := fstest.MapFS{}
		root := os.DirFS("../../examples/charts/ledger-api")
		err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(root, p)
			src[p] = &fstest.MapFile{Data: data}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		src["templates/extra.yaml"] = &fstest.MapFile{Data: []byte(extra)}
		if charts["ledger-api"]["1.3.1"], err = chartpack.Package(src, "ledger-api", "1.3.1"); err != nil {
			t.Fatal(err)
		}
	}
	repo := chartsrv.NewRepo(t, charts, chartsrv.Options{})
	loopback := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)
	f := newFleet(t, func(dir string) {
		files, _ := filepath.Glob(filepath.Join(dir, "argocd", "*.yaml"))
		more, _ := filepath.Glob(filepath.Join(dir, "argocd", "*", "*.yaml"))
		for _, p := range append(files, more...) {
			data, _ := os.ReadFile(p)
			if err := os.WriteFile(p, loopback.ReplaceAll(data, []byte(repo.URL)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if mode != "" {
			cfg, _ := os.ReadFile(filepath.Join(dir, ".promote.yaml"))
			cfg = append(cfg, "gates:\n  prod: {syncReady: "+mode+"}\n"...)
			if err := os.WriteFile(filepath.Join(dir, ".promote.yaml"), cfg, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // manifestdiff's chart cache, for the child
	env := map[string]string{"PATH": filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	return f, env
}

// TestSyncReadyGate promotes preprod -> prod through the syncReady gate:
// a chart version whose rendering Argo CD would refuse in prod is refused
// (exit 3, nothing written, one line per finding naming rule, app and
// object), unless overridden with a reason, which the commit records; a
// clean one passes; warn says so and goes on.
func TestSyncReadyGate(t *testing.T) {
	for _, c := range []struct {
		name, mode, extra string
		args              []string
		code              int
		want, not         []string // in stdout and stderr together
		trailer           string
	}{
		{name: "cluster role refused", mode: "require", extra: clusterRoleTemplate, code: 3,
			want: []string{"prod refused by gate syncReady:",
				"error project-cluster-resource prod/ledger-node-a-api-prod rbac.authorization.k8s.io/v1 ClusterRole ledger-node-a-api-prod-reader:",
				"ledger-node-e-api-prod", "--override-sync-ready REASON"}},
		{name: "removed API refused", mode: "require", extra: removedAPITemplate, code: 3,
			want: []string{"error api-removed prod/ledger-node-f-api-prod extensions/v1beta1 Ingress ledger-node-f/ledger-node-f-api-prod:"}},
		{name: "overridden", mode: "require", extra: clusterRoleTemplate, code: 0,
			args:    []string{"--override-sync-ready", "CAB-77 approved the ClusterRole"},
			want:    []string{"gate syncReady overridden by rm@example.com (CAB-77 approved the ClusterRole)"},
			trailer: "Gate-Overridden: syncReady by rm@example.com: CAB-77 approved the ClusterRole"},
		{name: "clean passes", mode: "require", code: 0,
			want: []string{"gate syncReady passed: no new sync-readiness error in prod (7 apps rendered before and after)"}},
		{name: "warn goes on", mode: "warn", extra: clusterRoleTemplate, code: 0,
			want: []string{"gate syncReady warning: prod would get 3 new sync-readiness errors: error project-cluster-resource prod/ledger-node-a-api-prod"}},
		{name: "no gate renders nothing", mode: "", extra: clusterRoleTemplate, code: 0, not: []string{"syncReady"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, env := readyFleet(t, c.mode, c.extra)
			before := f.snapshot(t)
			r := f.run(t, env, append([]string{"apply", "--from", "preprod", "--to", "prod"}, c.args...)...)
			all := r.out + r.errOut
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, c.code, all)
			}
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, n := range c.not {
				if strings.Contains(all, n) {
					t.Errorf("output has %q:\n%s", n, all)
				}
			}
			if c.code != 0 {
				if after := f.snapshot(t); after != before {
					t.Errorf("a refusal wrote: %+v -> %+v", before, after)
				}
				return
			}
			if !strings.Contains(f.read(t, "versions/prod.yaml"), `chartVersion: "1.3.1"`) {
				t.Errorf("not applied:\n%s", f.read(t, "versions/prod.yaml"))
			}
			msg := gitRun(t, f.Dir, "log", "-1", "--format=%B")
			if c.trailer != "" && !strings.Contains(msg, c.trailer) {
				t.Errorf("commit lacks %q:\n%s", c.trailer, msg)
			}
			if c.trailer == "" && strings.Contains(msg, "Gate-Overridden") {
				t.Errorf("commit records an override nobody gave:\n%s", msg)
			}
		})
	}
}

// TestSyncReadyGateWithoutManifestdiff: a gate that cannot render refuses
// (exit 3), saying what is missing; it never passes.
func TestSyncReadyGateWithoutManifestdiff(t *testing.T) {
	f, _ := readyFleet(t, "require", "")
	r := f.run(t, map[string]string{"PATH": t.TempDir()}, "plan", "--from", "preprod", "--to", "prod")
	if r.code != 3 || !strings.Contains(r.errOut, "syncReady: cannot evaluate: manifestdiff not found beside promote nor on PATH") {
		t.Fatalf("exit %d\n%s%s", r.code, r.out, r.errOut)
	}
}

// TestCheckRendered seeds prod with an app whose rendering Argo CD would
// refuse: check --rendered reports it as manifestdiff lists it and in
// JSON, and exits 1; --fail-on never reports it and exits 0.
func TestCheckRendered(t *testing.T) {
	f, env := readyFleet(t, "", "")
	// the extra app is prod's alone: not an ordering finding
	f.commitFile(t, ".promote.yaml", strings.Replace(f.read(t, ".promote.yaml"), "ordering:\n", "ordering:\n  parityIgnore: [extra]\n", 1), "parity: extra is prod's")
	if err := os.MkdirAll(filepath.Join(f.Dir, "extra", "prod"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.commitFile(t, "extra/prod/role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n", "prod: a role")
	f.commitFile(t, "argocd/prod/app-extra.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: extra-prod
  namespace: argocd
spec:
  project: ledger-prod
  source:
    repoURL: https://gitlab.example.com/platform/ledger-fleet.git
    targetRevision: main
    path: extra/prod
  destination:
    server: https://kubernetes.default.svc
    namespace: ledger-extra
`, "prod: an extra app")
	line := "error project-cluster-resource prod/extra-prod rbac.authorization.k8s.io/v1 ClusterRole reader: cluster-scoped rbac.authorization.k8s.io/ClusterRole is not permitted by AppProject ledger-prod"
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"text", nil, 1, line},
		{"never fails", []string{"--fail-on", "never"}, 0, line},
		{"json", []string{"-o", "json"}, 1, `"rule": "project-cluster-resource"`},
		{"qa has none", []string{"--env", "qa"}, 0, "ok: qa: no findings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.run(t, env, append([]string{"check", "--rendered"}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.out, c.want) {
				t.Fatalf("exit %d (want %d), stdout lacks %q:\n%s\nstderr:\n%s", r.code, c.code, c.want, r.out, r.errOut)
			}
			if c.name != "json" {
				return
			}
			var doc struct {
				OK            bool
				SyncReadiness struct {
					Findings []map[string]any
				}
			}
			if err := json.Unmarshal([]byte(r.out), &doc); err != nil || doc.OK || len(doc.SyncReadiness.Findings) == 0 {
				t.Errorf("JSON %+v (%v):\n%s", doc, err, r.out)
			}
		})
	}
}

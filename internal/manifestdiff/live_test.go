//go:build live

package manifestdiff

// The live diff against a real kube-apiserver (etcd and kube-apiserver
// built from the module proxy; `make test-live`). The generated repo's QA
// env is synced to the cluster first, as Argo CD would; each case then
// edits the cluster or the head revision and reads the report.

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/kube"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/testutil/kubeserver"
)

const (
	alphaNS    = "dlt-node-alpha"
	betaNS     = "dlt-node-beta"
	alphaFront = "dlt-node-alpha-frontend-qa"
	betaFront  = "dlt-node-beta-frontend-qa"
	alphaBack  = "dlt-node-alpha-backend-qa"
	alphaVault = "dlt-node-alpha-vault-qa"
	// alphaUnseal holds a token the chart draws with randAlphaNum
	alphaUnseal = alphaVault + "-unseal"
)

func TestLive(t *testing.T) {
	srv := kubeserver.Start(t)
	kubeconfig := srv.Kubeconfig(t)
	admin := srv.Client(t, kubeserver.Admin)
	repo := generateRepo(t)
	main := repo.fs
	syncEnv(t, admin, repo, main, "qa")
	ctx := context.Background()

	t.Run("synced env has no changes", func(t *testing.T) {
		rep, logged, err := liveRunLogged(t, repo, main, main, kubeconfig, "", "qa")
		if err != nil {
			t.Fatal(err)
		}
		// Listing skips what Argo CD never watches (v1 Endpoints and
		// ComponentStatus, which the server warns about, among them):
		// nothing to say.
		if len(logged) > 0 {
			t.Errorf("logged:\n%s", strings.Join(logged, "\n"))
		}
		if len(rep.LiveEnvs) != 1 || rep.LiveEnvs[0].Error != "" || len(rep.LiveEnvs[0].Findings) != 0 {
			t.Fatalf("live envs = %+v", rep.LiveEnvs)
		}
		compared := 0
		for _, a := range rep.Apps {
			if a.Live == nil || a.Live.Error != "" || len(a.Live.Findings) > 0 {
				t.Errorf("%s: live = %+v", a.Name, a.Live)
				continue
			}
			compared++
		}
		if compared < 10 {
			t.Fatalf("only %d apps compared", compared)
		}
		// The vault chart draws its unseal token with randAlphaNum: a new
		// render never matches the live one, and differs between the two
		// head renders too, so it is generated, never a change or drift.
		for k, r := range liveIndex(t, rep) {
			t.Errorf("unexpected %s:\n%s", k, r.Diff)
		}
	})

	// The cluster as people leave it: a manual scale, a hot-fixed label,
	// objects a chart no longer renders, a field another manager took
	// over. (A field nobody rendered, added by hand, never shows: the dry
	// run leaves other managers' fields alone, as Argo CD's does.)
	kubectl := "kubectl-edit"
	must(t, admin.MergePatch(ctx, "apps/v1", "Deployment", betaNS, betaFront, `{"spec":{"replicas":3}}`, kubectl))
	must(t, admin.MergePatch(ctx, "apps/v1", "Deployment", alphaNS, alphaFront, `{"spec":{"replicas":2}}`, kubectl))
	for _, ns := range []string{alphaNS, betaNS} {
		name := strings.Replace(alphaFront, "alpha", strings.TrimPrefix(ns, "dlt-node-"), 1)
		must(t, admin.MergePatch(ctx, "v1", "Service", ns, name, `{"metadata":{"labels":{"app.kubernetes.io/version":"hotfix"}}}`, kubectl))
		must(t, admin.Apply(ctx, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name + "-config", "namespace": ns},
			"data":     map[string]any{"config.yaml": "tuned: by-hpa-sim\n"}}, "hpa-sim"))
	}
	tracked := func(app, ns, name string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{
			"name": name, "namespace": ns,
			"annotations": map[string]any{"argocd.argoproj.io/tracking-id": app + ":/ConfigMap:" + ns + "/" + name}}}
	}
	// a rendered field of the Secret whose token is generated, edited by hand
	must(t, admin.MergePatch(ctx, "v1", "Secret", alphaNS, alphaUnseal,
		`{"metadata":{"annotations":{"argocd.argoproj.io/tracking-id":"by-hand"}}}`, kubectl))
	must(t, admin.Apply(ctx, tracked(alphaBack, alphaNS, "legacy"), "argocd-controller"))
	must(t, admin.Apply(ctx, tracked("dlt-backup-qa", "dlt-ops", "backup-legacy"), "argocd-controller"))
	copied := tracked(alphaBack, alphaNS, "legacy")
	copied["metadata"].(map[string]any)["name"] = "copied"
	must(t, admin.Apply(ctx, copied, "someone"))

	t.Run("pruned, remaining and drift", func(t *testing.T) {
		rep, err := liveRun(t, repo, main, main, kubeconfig, "", "qa")
		if err != nil {
			t.Fatal(err)
		}
		idx := liveIndex(t, rep)
		want := []string{
			alphaBack + "|change|prune|ConfigMap dlt-node-alpha/legacy",
			alphaBack + "|drift|extra|ConfigMap dlt-node-alpha/legacy",
			"dlt-backup-qa|change|remain|ConfigMap dlt-ops/backup-legacy",
			betaFront + "|change|update|Deployment dlt-node-beta/" + betaFront,
			betaFront + "|drift|modified|Deployment dlt-node-beta/" + betaFront,
		}
		for _, k := range want {
			if _, ok := idx[k]; !ok {
				t.Errorf("missing %s; have:\n%s", k, strings.Join(sortedKeys(idx), "\n"))
			}
		}
		for k := range idx {
			if strings.Contains(k, "copied") {
				t.Errorf("%s: a copied tracking annotation does not make an object the app's", k)
			}
		}
		sync := idx[betaFront+"|change|update|Deployment dlt-node-beta/"+betaFront].Diff
		drift := idx[betaFront+"|drift|modified|Deployment dlt-node-beta/"+betaFront].Diff
		if !strings.Contains(sync, "-  replicas: 3\n+  replicas: 1\n") || !strings.Contains(drift, "-  replicas: 1\n+  replicas: 3\n") {
			t.Errorf("sync diff:\n%s\ndrift diff:\n%s", sync, drift)
		}
		// the hand edit is a change and a drift; the token beside it is
		// generated in both, never shown
		for _, k := range []string{alphaVault + "|change|update|Secret " + alphaNS + "/" + alphaUnseal,
			alphaVault + "|drift|modified|Secret " + alphaNS + "/" + alphaUnseal} {
			r := idx[k]
			if !slices.Equal(r.Generated, []string{"data.token"}) || !slices.Equal(keys(r), []string{"data.token generated"}) ||
				!strings.Contains(r.Diff, "by-hand") {
				t.Errorf("%s: generated %v, secret keys %v, diff:\n%s", k, r.Generated, keys(r), r.Diff)
			}
		}
		if s := rep.Summary().Live; s.Prune != 1 || s.Remain != 1 || !rep.Summary().Changed() {
			t.Errorf("summary = %+v", s)
		}
	})

	t.Run("ignoreDifferences", func(t *testing.T) {
		head := derive(t, main).edit("argocd/qa/appset-frontend.yaml", "      syncPolicy:\n", `      ignoreDifferences:
      - group: apps
        kind: Deployment
        name: `+alphaFront+`
        jsonPointers: [/spec/replicas]
      - kind: Service
        namespace: `+alphaNS+`
        jqPathExpressions: ['.metadata.labels["app.kubernetes.io/version"]']
      - kind: Config*
        name: `+alphaFront+`-config
        managedFieldsManagers: [hpa-sim]
      syncPolicy:
`).m
		rep, err := liveRun(t, repo, main, head, kubeconfig, "", "qa")
		if err != nil {
			t.Fatal(err)
		}
		idx := liveIndex(t, rep)
		for _, kind := range []string{"Deployment", "Service", "ConfigMap"} {
			var alpha, beta []string
			for k := range idx {
				if strings.Contains(k, "|"+kind+" ") && !strings.HasSuffix(k, "-unseal") {
					if strings.HasPrefix(k, alphaFront+"|") {
						alpha = append(alpha, k)
					}
					if strings.HasPrefix(k, betaFront+"|") {
						beta = append(beta, k)
					}
				}
			}
			if len(alpha) != 0 {
				t.Errorf("%s of %s should be ignored: %v", kind, alphaFront, alpha)
			}
			if len(beta) != 2 { // the same edit without a rule: sync and drift
				t.Errorf("%s of %s: %v", kind, betaFront, beta)
			}
		}
	})

	t.Run("created and changed", func(t *testing.T) {
		tr := derive(t, main).edit("versions/qa.yaml", `imageTag: "v2.2.0"`, `imageTag: "v2.3.0"`)
		for _, c := range []string{"namespace", "vault", "backend", "frontend"} {
			p := "envs/qa/nodes/node-alpha/values-" + c + ".yaml"
			tr.write(strings.Replace(p, "alpha", "gamma", 1), strings.ReplaceAll(string(main[p].Data), "alpha", "gamma"))
		}
		rep, err := liveRun(t, repo, main, tr.m, kubeconfig, "", "qa")
		if err != nil {
			t.Fatal(err)
		}
		idx := liveIndex(t, rep)
		created := idx["dlt-node-gamma-backend-qa|change|create|Deployment dlt-node-gamma/dlt-node-gamma-backend-qa"]
		if !strings.Contains(created.Diff, "+    app.kubernetes.io/instance: dlt-node-gamma-backend-qa") {
			t.Errorf("created deployment:\n%s", created.Diff)
		}
		secret := idx["dlt-node-gamma-backend-qa|change|create|Secret dlt-node-gamma/dlt-node-gamma-backend-qa-credentials"]
		if strings.Contains(secret.Diff, "pw-") || !strings.Contains(secret.Diff, "<redacted: added>") {
			t.Errorf("created secret not redacted:\n%s", secret.Diff)
		}
		changed := idx[alphaBack+"|change|update|Deployment dlt-node-alpha/"+alphaBack].Diff
		if !strings.Contains(changed, "-        - image: registry.example.com/dlt/backend:v2.2.0\n+        - image: registry.example.com/dlt/backend:v2.3.0\n") {
			t.Errorf("changed deployment:\n%s", changed)
		}
		if _, ok := idx[alphaBack+"|drift|modified|Deployment dlt-node-alpha/"+alphaBack]; ok {
			t.Error("an MR's change is not drift")
		}
	})

	t.Run("forbidden objects are findings", func(t *testing.T) {
		grantRestricted(t, admin)
		rep, err := liveRun(t, repo, main, main, kubeconfig, kubeserver.Restricted, "qa")
		if err != nil {
			t.Fatal(err)
		}
		forbidden := 0
		for _, a := range rep.Apps {
			if a.Live == nil || a.Live.Error != "" {
				t.Fatalf("%s: %+v", a.Name, a.Live)
			}
			for _, f := range a.Live.Findings {
				if f.Kind != "Secret" || f.Reason != "forbidden" {
					t.Errorf("%s: finding %+v", a.Name, f)
				}
				forbidden++
			}
		}
		if forbidden == 0 {
			t.Error("no forbidden findings")
		}
		if envF := rep.LiveEnvs[0].Findings; len(envF) == 0 || envF[0].Reason != "forbidden" {
			t.Errorf("listing secrets should be a forbidden finding: %+v", envF)
		}
		if _, ok := liveIndex(t, rep)[betaFront+"|drift|modified|Deployment dlt-node-beta/"+betaFront]; !ok {
			t.Error("what the user may read is still compared")
		}
	})

	t.Run("server warnings are the env's, once, cleaned", func(t *testing.T) {
		// a memory request in fractional bytes: the API server accepts
		// it, with a warning that quotes the value
		head := derive(t, main).edit("envs/qa/nodes/node-alpha/values-backend.yaml", "backend:\n",
			"backend:\n  resources:\n    requests:\n      memory: 300m\n").m
		rep, logged, err := liveRunLogged(t, repo, main, head, kubeconfig, "", "qa")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := liveIndex(t, rep)[alphaBack+"|change|update|Deployment dlt-node-alpha/"+alphaBack]; !ok {
			t.Error("the request is a change")
		}
		var warned []string
		for _, l := range logged {
			if strings.Contains(l, "fractional byte value") {
				warned = append(warned, l)
			} else {
				t.Errorf("unexpected: %s", l)
			}
		}
		if len(warned) != 1 || !strings.HasPrefix(warned[0], "WARN env qa: the API server warns: ") ||
			strings.Contains(warned[0], "300m") || !strings.Contains(warned[0], "***") {
			t.Errorf("warnings = %q, want one of env qa, its quoted value masked", warned)
		}
	})

	t.Run("tracking changed between revisions", func(t *testing.T) {
		// applied under label tracking with its own key: the base
		// revision's setting, which the head revision drops
		must(t, admin.Apply(ctx, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{
			"name": "label-legacy", "namespace": alphaNS, "labels": map[string]any{"example.com/app": alphaBack}}}, kube.Manager))
		cfg := string(main[config.FileName].Data) + "argocd:\n  tracking: label\n  instanceLabelKey: example.com/app\n"
		byLabel := derive(t, main).write(config.FileName, cfg).m
		key := alphaBack + "|change|prune|ConfigMap " + alphaNS + "/label-legacy"
		for _, tt := range []struct {
			name       string
			base, head fstest.MapFS
			found      bool
		}{
			{"label to annotation", byLabel, main, true},
			{"annotation to label", main, byLabel, true},
			{"annotation at both", main, main, false},
		} {
			rep, err := liveRun(t, repo, tt.base, tt.head, kubeconfig, "", "qa")
			if err != nil {
				t.Fatal(err)
			}
			idx := liveIndex(t, rep)
			if _, ok := idx[key]; ok != tt.found {
				t.Errorf("%s: %s found %v, want %v", tt.name, key, ok, tt.found)
			}
			// what the annotation tracks is found as well
			if _, ok := idx[alphaBack+"|change|prune|ConfigMap dlt-node-alpha/legacy"]; !ok {
				t.Errorf("%s: the annotation-tracked legacy ConfigMap is missing", tt.name)
			}
		}
	})

	t.Run("unreachable env fails alone", func(t *testing.T) {
		rep, err := liveRun(t, repo, main, main, kubeconfig, "", "qa", "preprod")
		if !errors.Is(err, ErrLive) {
			t.Fatalf("err = %v, want ErrLive", err)
		}
		byEnv := map[string]report.LiveEnv{}
		for _, e := range rep.LiveEnvs {
			byEnv[e.Env] = e
		}
		if byEnv["preprod"].Error == "" || !strings.Contains(byEnv["preprod"].Error, "unreachable") {
			t.Errorf("preprod = %+v", byEnv["preprod"])
		}
		if byEnv["qa"].Error != "" {
			t.Errorf("qa = %+v", byEnv["qa"])
		}
		if _, ok := liveIndex(t, rep)[betaFront+"|drift|modified|Deployment dlt-node-beta/"+betaFront]; !ok {
			t.Error("qa must still be compared")
		}
		var md strings.Builder
		if err := report.MarkdownWith(&md, rep, report.MarkdownOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md.String(), ":warning: **live diff of preprod failed") {
			t.Errorf("the note must say preprod was not compared:\n%.2000s", md.String())
		}
	})
}

// grantRestricted lets the restricted user read and dry-run everything the
// repo renders except Secrets.
func grantRestricted(t *testing.T, c *kubeserver.Client) {
	rules := []any{
		map[string]any{"apiGroups": []any{"", "apps", "argoproj.io", "platform.example.com"},
			"resources": []any{"configmaps", "services", "namespaces", "deployments", "statefulsets", "applications", "applicationsets", "projectapplicationtemplates"},
			"verbs":     []any{"get", "list", "patch"}},
	}
	mustApply(t, c, map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": "live-diff"}, "rules": rules}, "setup")
	mustApply(t, c, map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": "live-diff"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "live-diff"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": kubeserver.Restricted}}}, "setup")
}

func keys(r report.LiveResource) []string {
	var out []string
	for _, k := range r.SecretKeys {
		if k.Status != "unchanged" {
			out = append(out, k.Key+" "+k.Status)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

package syncready

import (
	"slices"

	"os"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// TestAPILifecycle reads k8s.io/api's generated lifecycle data: the
// expected versions are those of its zz_generated.prerelease-lifecycle.go.
func TestAPILifecycle(t *testing.T) {
	tests := []struct {
		apiVersion, kind, kube string
		rule, says             string
	}{
		{"extensions/v1beta1", "Ingress", "1.22", RuleAPIRemoved, "use networking.k8s.io/v1 Ingress"},
		{"extensions/v1beta1", "Ingress", "1.21", RuleAPIDeprecated, "deprecated since Kubernetes 1.14, removed in 1.22"},
		{"batch/v1beta1", "CronJob", "1.21", RuleAPIDeprecated, "use batch/v1 CronJob"},
		{"batch/v1beta1", "CronJob", "v1.25.3", RuleAPIRemoved, "not served from Kubernetes 1.25 (env runs 1.25)"},
		{"batch/v1beta1", "CronJob", "1.20", "", ""},
		{"flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema", "1.32", RuleAPIRemoved, "use flowcontrol.apiserver.k8s.io/v1 FlowSchema"},
		// gone from k8s.io/api altogether: its group is still known
		{"autoscaling/v2beta2", "HorizontalPodAutoscaler", "1.31", RuleAPIRemoved, "no longer in k8s.io/api v0.37.1"},
		{"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", "1.22", RuleAPIRemoved, "use apiextensions.k8s.io/v1 CustomResourceDefinition"},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "1.31", "", ""},
		{"apps/v1", "Deployment", "1.31", "", ""},
		{"v1", "ConfigMap", "1.31", "", ""},
		{"example.com/v1", "Widget", "1.31", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.apiVersion+" "+tt.kind+" at "+tt.kube, func(t *testing.T) {
			fs, err := Check(Env{Name: "prod", KubeVersion: tt.kube, Projects: map[string]*Project{"default": permissive()},
				Apps: []App{{Name: "a", Server: "https://kubernetes.default.svc", Namespace: "ns",
					Objects: []Object{{APIVersion: tt.apiVersion, Kind: tt.kind, Namespace: "ns", Name: "x"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			if tt.rule == "" {
				if len(fs) != 0 {
					t.Fatalf("findings %+v, want none", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule != tt.rule || !strings.Contains(fs[0].Message, tt.says) {
				t.Fatalf("findings %+v, want one %s saying %q", fs, tt.rule, tt.says)
			}
			wantSev := SeverityError
			if tt.rule == RuleAPIDeprecated {
				wantSev = SeverityWarning
			}
			if fs[0].Severity != wantSev {
				t.Errorf("severity %s, want %s", fs[0].Severity, wantSev)
			}
		})
	}
}

func TestBadKubeVersion(t *testing.T) {
	_, err := Check(Env{Name: "prod", KubeVersion: "latest"})
	if err == nil || !strings.Contains(err.Error(), "env prod: kubeVersion \"latest\"") {
		t.Fatalf("error %v", err)
	}
}

// TestAPIModuleVersion holds APIModuleVersion, which messages and docs
// name, to the k8s.io/api, client-go and apiextensions-apiserver go.mod
// requires.
func TestAPIModuleVersion(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	// the schema rules name it too: client-go's and apiextensions-apiserver's
	// embedded schemas are of the same release
	for _, mod := range []string{"k8s.io/api", "k8s.io/client-go", "k8s.io/apiextensions-apiserver"} {
		if !strings.Contains(string(data), "\t"+mod+" "+APIModuleVersion+" ") && !strings.Contains(string(data), "\t"+mod+" "+APIModuleVersion+"\n") {
			t.Errorf("go.mod does not require %s %s: update APIModuleVersion and the docs", mod, APIModuleVersion)
		}
	}
}

func permissive() *Project {
	return &Project{Name: "default", File: "p.yaml", SourceRepos: []string{"*"},
		Destinations: []Destination{{Server: "*", Namespace: "*"}},
		ClusterAllow: []ResourceRule{{Group: "*", Kind: "*"}}}
}

func TestSharedResource(t *testing.T) {
	cm := Object{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "shared"}
	fs, err := Check(Env{Name: "qa", Projects: map[string]*Project{"default": permissive()}, Apps: []App{
		{Name: "a", Server: "https://x", Namespace: "ns", Objects: []Object{cm, cm}},
		{Name: "b", Server: "https://x", Namespace: "ns", Objects: []Object{cm, {APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "own"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[0].App != "a" || fs[1].App != "b" || fs[0].Rule != RuleSharedResource ||
		!strings.Contains(fs[0].Message, "also rendered by b") || !strings.Contains(fs[1].Message, "also rendered by a") {
		t.Fatalf("findings %+v", fs)
	}
}

func TestPreexistingAndPolicy(t *testing.T) {
	head := []Finding{
		{Rule: RuleAPIDeprecated, Severity: SeverityWarning, Env: "qa", App: "a", Kind: "CronJob", Name: "old"},
		{Rule: RuleProjectSource, Severity: SeverityError, Env: "qa", App: "a", Message: "new"},
	}
	base := []Finding{{Rule: RuleAPIDeprecated, Severity: SeverityWarning, Env: "qa", App: "a", Kind: "CronJob", Name: "old", Message: "x"}}
	got := MarkPreexisting(head, base, []string{"qa"})
	if got[0].Rule != RuleProjectSource || got[0].Preexisting || !got[1].Preexisting {
		t.Fatalf("order or marks wrong: %+v", got)
	}
	if !Fails(got, "error") || !Fails(got, "warning") || Fails(got, "never") {
		t.Error("a new error must fail --fail-on error and warning, never never")
	}
	got = Apply(got, map[string]string{RuleProjectSource: SeverityOff})
	if len(got) != 1 || Fails(got, "warning") {
		t.Errorf("after turning project-source off and with only a preexisting warning: %+v", got)
	}
}

// TestRulesKnownToConfig: .promote.yaml's syncReadiness.severity accepts
// exactly these rule ids.
func TestRulesKnownToConfig(t *testing.T) {
	var ids []string
	for _, r := range Rules {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, config.SyncRules) {
		t.Errorf("syncready.Rules %v, config.SyncRules %v", ids, config.SyncRules)
	}
}

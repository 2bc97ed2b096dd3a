package promote

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gates"
)

const testConfig = `repoURL: https://git.example.com/fleet.git
environments: [qa, prod]
versions: versions/{env}.yaml
manifests: ["argocd/{env}/*.yaml"]
components:
  api: {chart: api}
`

const appYAML = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: api-prod
spec:
  source:
    repoURL: https://charts.example.com
    chart: api
    targetRevision: "1.0.0"   # pinned
  destination: {namespace: api}
`

func tree(qaVer, prodVer, prodTag string) fstest.MapFS {
	return fstest.MapFS{
		"versions/qa.yaml":        {Data: []byte("api:\n  chartVersion: \"" + qaVer + "\"\n  imageTag: v2\n")},
		"versions/prod.yaml":      {Data: []byte("api:\n  chartVersion: \"" + prodVer + "\"\n  imageTag: " + prodTag + "\n")},
		"argocd/prod/app.yaml":    {Data: []byte(strings.Replace(appYAML, "1.0.0", prodVer, 1))},
		"argocd/qa/app.yaml":      {Data: []byte(strings.NewReplacer("api-prod", "api-qa", "1.0.0", qaVer).Replace(appYAML))},
		"argocd/prod/ignored.txt": {Data: []byte("not yaml: [")},
	}
}

func mustPlan(t *testing.T, fsys fstest.MapFS) *Plan {
	t.Helper()
	cfg, err := config.Parse([]byte(testConfig))
	if err != nil {
		t.Fatal(err)
	}
	p, err := BuildPromotion(fsys, cfg, PromoteRequest{From: "qa", To: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuildPromotionEditsVersionsAndRevision(t *testing.T) {
	p := mustPlan(t, tree("1.1.0", "1.0.0", "v1"))
	if got := string(p.New["argocd/prod/app.yaml"]); !strings.Contains(got, `targetRevision: "1.1.0"   # pinned`) {
		t.Errorf("revision not edited in place:\n%s", got)
	}
	if len(p.Rows) != 2 || p.Rows[0].Key != "chartVersion" || len(p.Rows[0].Files) != 2 {
		t.Errorf("rows = %+v", p.Rows)
	}
	if len(p.Charts) != 1 || p.Charts[0].RepoURL != "https://charts.example.com" || p.Charts[0].Version != "1.1.0" {
		t.Errorf("charts to verify = %+v", p.Charts)
	}
}

// Rebase is a compare-and-swap per field: old value -> edit, new value ->
// skip, anything else -> ConflictError naming the field.
func TestRebaseCompareAndSwap(t *testing.T) {
	p := mustPlan(t, tree("1.1.0", "1.0.0", "v1"))
	tests := []struct {
		name      string
		tip       fstest.MapFS
		edits     int
		conflicts string
	}{
		{"unchanged tip", tree("1.1.0", "1.0.0", "v1"), 3, ""},
		{"tag already promoted", tree("1.1.0", "1.0.0", "v2"), 2, ""},
		{"everything already there", tree("1.1.0", "1.1.0", "v2"), 0, ""},
		{"tag moved elsewhere", tree("1.1.0", "1.0.0", "v9"), 0, `api.imageTag is now "v9" on the remote (expected "v1" or "v2")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Rebase(p, tt.tip)
			if tt.conflicts != "" {
				var ce *ConflictError
				if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), tt.conflicts) {
					t.Fatalf("err = %v, want a conflict %q", err, tt.conflicts)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Edits) != tt.edits {
				t.Errorf("edits = %d, want %d", len(got.Edits), tt.edits)
			}
		})
	}
}

// TestRebaseKeepsGateOverrides: a plan rebuilt on a new remote tip keeps
// its gate report, so the commit that lands still carries the
// Gate-Overridden trailers of the overrides it was planned with.
func TestRebaseKeepsGateOverrides(t *testing.T) {
	p := mustPlan(t, tree("1.1.0", "1.0.0", "v1"))
	p.Gates = &gates.Report{}
	got, err := Rebase(p, tree("1.1.0", "1.0.0", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Gates != p.Gates {
		t.Errorf("rebased plan's gates = %v, want the planned report", got.Gates)
	}
}

func TestBranchFor(t *testing.T) {
	if got := BranchFor(&Plan{Verb: "promote", From: "qa", To: "prod"}, nil); got != "promote/qa-to-prod" {
		t.Errorf("promote branch = %q", got)
	}
	a := BranchFor(&Plan{Verb: "pin", To: "qa"}, []KeyValue{{"x.imageTag", "v1"}, {"y.imageTag", "v2"}})
	b := BranchFor(&Plan{Verb: "pin", To: "qa"}, []KeyValue{{"y.imageTag", "v2"}, {"x.imageTag", "v1"}})
	c := BranchFor(&Plan{Verb: "pin", To: "qa"}, []KeyValue{{"x.imageTag", "v3"}})
	if a != b || a == c || !strings.HasPrefix(a, "pin/qa-") || len(a) != len("pin/qa-")+8 {
		t.Errorf("pin branches: %q %q %q", a, b, c)
	}
}

func TestBackoffStaysBounded(t *testing.T) {
	for attempt := 1; attempt <= 100; attempt++ {
		for range 20 {
			if d := backoff(attempt); d <= 0 || d > 4*time.Second {
				t.Fatalf("backoff(%d) = %v", attempt, d)
			}
		}
	}
}

// BuildPromotion plans promoting every in-scope component field of From
// into To, reading both versions files and To's manifests from fsys.
func BuildPromotion(fsys fs.FS, cfg *config.Config, req PromoteRequest) (*Plan, error) {
	return BuildPromotionFrom(fsys, fsys, cfg, req)
}

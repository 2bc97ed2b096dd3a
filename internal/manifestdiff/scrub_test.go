package manifestdiff

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

const leakyApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: leaky-prod, namespace: argocd}
spec:
  project: ledger-prod
  sources:
  - repoURL: https://robot:pa/ss-PLANT-CRED@charts.example.com/stable
    chart: leaky
    targetRevision: 1.0.0
    helm:
      valueFiles: [$values/envs/prod/leaky.yaml]
      values: "inline: PLANT-INLINE-3"
      parameters: [{name: token, value: PLANT-PARAM-2}]
  - repoURL: https://gitlab.example.com/platform/ledger-fleet.git
    targetRevision: main
    ref: values
  destination: {server: https://kubernetes.default.svc, namespace: leaky}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: other-prod, namespace: argocd}
spec:
  project: ledger-prod
  source:
    repoURL: https://oauth2:PLANT-OTHER/REPO@other.example.com/x.git
    path: manifests
    targetRevision: main
  destination: {server: https://kubernetes.default.svc, namespace: leaky}
`

// echoingFetcher fails the way a careless chart server or proxy might:
// its message repeats the request's URL and the values it was sent.
type echoingFetcher struct{ *fetcher }

func (e echoingFetcher) Fetch(ctx context.Context, repoURL, chart, version string) ([]byte, error) {
	if chart != "leaky" {
		return e.fetcher.Fetch(ctx, repoURL, chart, version)
	}
	return nil, fmt.Errorf("GET %s/%s-%s.tgz: 500: upstream said password=PLANT-VALUE-1 token=%s inline=%s b64=%s",
		repoURL, chart, version, "PLANT-PARAM-2", strings.ToUpper("PLANT-INLINE-3"),
		base64.StdEncoding.EncodeToString([]byte("PLANT-VALUE-1")))
}

// TestSafetyNetScrubsWhatRenderersLetThrough: whatever text reaches an
// app's error or note, no input value and no credential of the app
// survives in it.
func TestSafetyNetScrubsWhatRenderersLetThrough(t *testing.T) {
	base := exampleFleet(t)
	head := derive(t, base).
		write("argocd/prod/app-leaky.yaml", leakyApp).
		write("envs/prod/leaky.yaml", "password: PLANT-VALUE-1\n")
	cfg, err := config.Parse(head.m[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	d := &Diff{Config: cfg, Charts: echoingFetcher{newFetcher()},
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head.m}}
	rep, _ := d.Run(context.Background())
	app := findApp(t, rep, "prod", "leaky-prod")
	other := findApp(t, rep, "prod", "other-prod")
	if app.Status != report.StatusError || other.Status != report.StatusError {
		t.Fatalf("statuses %s and %s, want error", app.Status, other.Status)
	}
	text := app.Error + "\n" + app.NotRendered + "\n" + other.Error + "\n" + other.NotRendered
	for _, v := range []string{"PLANT-VALUE-1", "PLANT-PARAM-2", "PLANT-INLINE-3", "PLANT-CRED", "PLANT-OTHER", "OTHER/REPO", "pa/ss"} {
		for _, f := range []string{v, strings.ToUpper(v), base64.StdEncoding.EncodeToString([]byte(v))} {
			if strings.Contains(text, f) {
				t.Errorf("%q in %q", f, text)
			}
		}
	}
	for _, want := range []string{"env prod", "app leaky-prod", "chart leaky version 1.0.0", "charts.example.com/stable"} {
		if !strings.Contains(app.Error, want) {
			t.Errorf("error %q lacks %q", app.Error, want)
		}
	}
}

// TestSafetyNetCleansLiveMessages: with --live an API server's rejection
// quotes the value it refused ("Invalid value: ..."); so may a live
// error.
func TestSafetyNetCleansLiveMessages(t *testing.T) {
	const v = "PLANT-LIVE-7"
	b64 := base64.StdEncoding.EncodeToString([]byte(v))
	p := &pair{env: "qa", name: "web-qa"}
	p.manifests[1] = []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {pw: " + b64 + "}\n")
	p.result = report.App{Env: "qa", Name: "web-qa", Live: &report.Live{
		Error: "dry run failed: " + v,
		Findings: []report.LiveFinding{{Kind: "Secret", Name: "s", Reason: "rejected",
			Message: `Secret "s" is invalid: data[pw]: Invalid value: "` + b64 + `": decoded ` + v}},
	}}
	d := &Diff{Config: &config.Config{}, Base: Side{Name: "base"}, Head: Side{Name: "head"}}
	d.scrubResult(context.Background(), p)
	text := p.result.Live.Error + "\n" + p.result.Live.Findings[0].Message
	for _, f := range []string{v, b64} {
		if strings.Contains(text, f) {
			t.Errorf("%q in %q", f, text)
		}
	}
	if !strings.Contains(text, `Secret "s" is invalid: data[pw]: Invalid value:`) {
		t.Errorf("the message lost its position: %q", text)
	}
}

// TestSafetyNetCleansLiveEnvMessages: an env's own connection error and
// findings (a listing the API server refused) pass the same net as an
// app's, with every app of the env's values known.
func TestSafetyNetCleansLiveEnvMessages(t *testing.T) {
	const v = "PLANT-ENV-9"
	b64 := base64.StdEncoding.EncodeToString([]byte(v))
	p := &pair{env: "qa", name: "web-qa"}
	p.manifests[1] = []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {pw: " + b64 + "}\n")
	d := &Diff{Config: &config.Config{}, Base: Side{Name: "base"}, Head: Side{Name: "head"}}
	le := report.LiveEnv{Env: "qa", Error: "cluster qa: " + v,
		Findings: []report.LiveFinding{{Kind: "Secret", Reason: "forbidden", Message: "listing secrets: " + b64}}}
	d.scrubEnv(func() *scrub.Set { return d.envScrub(context.Background(), "qa", []*pair{p}) }, &le)
	text := le.Error + "\n" + le.Findings[0].Message
	for _, f := range []string{v, b64} {
		if strings.Contains(text, f) {
			t.Errorf("%q in %q", f, text)
		}
	}
	if !strings.Contains(text, "listing secrets: ") || !strings.Contains(text, "cluster qa: ") {
		t.Errorf("the messages lost their context: %q", text)
	}
}

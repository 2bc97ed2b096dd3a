package manifestdiff

import (
	"context"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// credentialApp is a directory source whose ConfigMap holds a credential
// the process knows, as a value, base64, URL-escaped, in an annotation
// and in its own name.
const credentialApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-creds-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/creds}
  destination: {server: https://kubernetes.default.svc, namespace: ledger-creds}
`

// TestMaskHidesKnownCredentialsInContent: Mask runs over every string of
// the report, so a credential the process knows is *** in the diff of a
// ConfigMap, in an annotation and in a resource's name, whatever its
// encoding; the rest of the content stays.
func TestMaskHidesKnownCredentialsInContent(t *testing.T) {
	const cred = "glpat-PLANTED-content-77"
	enc := base64.StdEncoding.EncodeToString([]byte(cred))
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" + strings.ToLower(cred) + "\n" +
		"  annotations: {origin: \"" + url.QueryEscape("https://x/?t="+cred) + "\"}\n" +
		"data:\n  token: " + cred + "\n  encoded: " + enc + "\n  upper: " + strings.ToUpper(cred) + "\n  plain: visible-config\n"
	base := exampleFleet(t)
	head := derive(t, base).
		write("envs/qa/creds/cm.yaml", cm).
		write("argocd/qa/app-creds.yaml", credentialApp)
	cfg, err := config.Parse(head.m[config.FileName].Data)
	if err != nil {
		t.Fatal(err)
	}
	known := &scrub.Set{}
	known.AddCredential("", cred)
	d := &Diff{Config: cfg, Charts: newFetcher(), Mask: known.Content,
		Base: Side{Name: "base", Rev: "b", FS: base}, Head: Side{Name: "head", Rev: "h", FS: head.m}}
	rep, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	app := findApp(t, rep, "qa", "ledger-creds-qa")
	if app.Status != report.StatusAdded || len(app.Resources) != 1 {
		t.Fatalf("app %s, resources %+v: want added with the ConfigMap", app.Status, app.Resources)
	}
	res := app.Resources[0]
	text := res.Name + "\n" + res.Diff
	for _, f := range []string{cred, enc, strings.ToUpper(cred), strings.ToLower(cred), url.QueryEscape(cred)} {
		if strings.Contains(text, f) {
			t.Errorf("%q in\n%s", f, text)
		}
	}
	for _, want := range []string{"+  token: ***", "plain: visible-config", "cm-***"} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
	for _, a := range rep.Apps {
		if a.Name != app.Name && strings.Contains(a.Name, scrub.Mask) {
			t.Errorf("app %q masked", a.Name)
		}
	}
}

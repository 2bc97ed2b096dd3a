package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
	"github.com/gitops-promote/gitops-promote/internal/testutil/chartsrv"
	"github.com/gitops-promote/gitops-promote/internal/testutil/tlsca"
)

// Helm's conventions for chart credentials and TLS, through the real
// manifestdiff binary: chart fetches and an in-repo chart's dependency
// build, from a chart repository and from an OCI registry on loopback that
// want credentials and speak TLS with a private CA, the credentials and
// CA read from Helm's files; another repository an app names gets none.

const (
	mdUser = "helm-robot"
	mdPass = "Md-Helm-Pass-Wv27"
)

// mdForms are the ways the password could show (clitest.Plant.Forms).
func mdForms() []string { return clitest.Plant{User: mdUser, Value: mdPass}.Forms() }

// umbrella is a chart kept in the GitOps repository whose dependencies
// come from depRepo and otherRepo: rendering it builds (downloads) both,
// and renders the first (the second's resources would have the same
// names).
func umbrella(f *fleet, t *testing.T, depRepo, otherRepo string) {
	f.write(t, "charts/umbrella/Chart.yaml", "apiVersion: v2\nname: umbrella\nversion: 0.1.0\n"+
		"dependencies:\n- name: ledger-api\n  version: 1.4.0\n  repository: "+depRepo+"\n"+
		"- name: edge-gateway\n  version: 2.1.0\n  repository: "+otherRepo+"\n  condition: edge-gateway.enabled\n")
	f.write(t, "charts/umbrella/values.yaml", "ledger-api:\n  ledger-node: {api: {imageTag: v3.2.0}}\nedge-gateway: {enabled: false}\n")
	f.write(t, "argocd/qa/app-umbrella.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: umbrella-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: charts/umbrella}
  destination: {server: https://kubernetes.default.svc, namespace: umbrella}
`)
}

func TestHelmCredentialConventions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := buildManifestdiff(t)
	ca := tlsca.New(t)
	charts := chartsrv.Examples(t, filepath.Join("..", "..", "examples", "charts"))
	type seer interface{ Seen() (int, []string) }
	for _, tc := range []struct {
		name string
		// serve starts the chart host the fleet uses and another one the
		// preprod gateway names (a registry there asks for a token as
		// public ones do); it writes Helm's files under home and returns
		// both hosts as repoURLs, and the dependencies' repositories.
		serve func(t *testing.T, home string) (repo, other, dep, otherDep string, own, elsewhere seer)
	}{
		{name: "chart repository: repositories.yaml", serve: func(t *testing.T, home string) (string, string, string, string, seer, seer) {
			repo := chartsrv.NewRepo(t, charts, chartsrv.Options{CA: ca, User: mdUser, Pass: mdPass})
			other := chartsrv.NewRepo(t, charts, chartsrv.Options{CA: ca})
			writeHome(t, home, ".config/helm/repositories.yaml", "repositories:\n"+
				"- {name: ledger, url: '"+repo.URL+"', username: "+mdUser+", password: "+mdPass+", caFile: '"+ca.File+"'}\n"+
				"- {name: other, url: '"+other.URL+"', caFile: '"+ca.File+"'}\n")
			return repo.URL, other.URL, repo.URL, other.URL, repo, other
		}},
		{name: "OCI registry: helm registry config", serve: func(t *testing.T, home string) (string, string, string, string, seer, seer) {
			reg := chartsrv.NewRegistry(t, charts, chartsrv.Options{CA: ca, User: mdUser, Pass: mdPass})
			other := chartsrv.NewRegistry(t, charts, chartsrv.Options{CA: ca, Public: true})
			writeHome(t, home, ".config/helm/registry/config.json",
				`{"auths":{"`+reg.Host+`":{"auth":"`+base64.StdEncoding.EncodeToString([]byte(mdUser+":"+mdPass))+`"}}}`)
			writeHome(t, home, ".config/helm/repositories.yaml", "repositories:\n"+
				"- {name: reg, url: 'oci://"+reg.Host+"', caFile: '"+ca.File+"'}\n- {name: other, url: 'oci://"+other.Host+"', caFile: '"+ca.File+"'}\n")
			return reg.Host + "/charts", "oci://" + other.Host + "/charts", "oci://" + reg.Host + "/charts", "oci://" + other.Host + "/charts", reg, other
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet(t)
			home := t.TempDir()
			repo, other, dep, otherDep, own, elsewhere := tc.serve(t, home)
			for _, env := range []string{"qa", "preprod", "prod"} {
				f.edit(t, "argocd/"+env+"/appset-nodes.yaml", f.Charts.URL, repo)
				to := repo
				if env == "preprod" {
					to = other
				}
				f.edit(t, "argocd/"+env+"/app-gateway.yaml", f.Charts.URL, to)
			}
			f.commit(t, "charts elsewhere")
			umbrella(f, t, dep, otherDep)
			base, head := f.scenario(t)
			cmd := exec.Command(bin, "--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir(), "-o", "json")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
			var out, errOut strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\nstderr: %s\nstdout: %s", err, errOut.String(), out.String())
			}
			doc := parseJSON(t, out.String())
			st := doc.statuses()
			for _, app := range []string{"qa/umbrella-qa", "preprod/ledger-node-a-api-preprod", "preprod/ledger-gateway-preprod"} {
				if want := map[string]string{"qa/umbrella-qa": "added", "preprod/ledger-node-a-api-preprod": "changed",
					"preprod/ledger-gateway-preprod": "unchanged"}[app]; st[app] != want {
					t.Errorf("%s: %s, want %s", app, st[app], want)
				}
			}
			for _, a := range doc.Apps {
				if a.Name == "umbrella-qa" && len(a.Resources) == 0 {
					t.Error("the umbrella chart rendered no resource of its dependency")
				}
			}
			if _, creds := own.Seen(); len(creds) == 0 {
				t.Error("the chart host got no credentials")
			}
			n, creds := elsewhere.Seen()
			if n == 0 {
				t.Error("the other host was never asked: the check proves nothing")
			}
			for _, c := range creds {
				for _, f := range mdForms() {
					if strings.Contains(c, f) {
						t.Errorf("the other host got %q", c)
					}
				}
			}
			for _, f := range mdForms() {
				if strings.Contains(out.String()+errOut.String(), f) {
					t.Errorf("%q printed", f)
				}
			}
		})
	}
}

func writeHome(t *testing.T, home, name, content string) {
	t.Helper()
	p := filepath.Join(home, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEchoedChartCredentialsNeverShow: the chart repository the
// credentials belong to answers with them echoed in its status line (a
// misconfigured proxy does). The app fails to render; its error, on
// stdout and in the merge request note, shows none of their forms.
func TestEchoedChartCredentialsNeverShow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := buildManifestdiff(t)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 502 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", r.Header.Get("Authorization"))
		buf.Flush()
	}))
	t.Cleanup(echo.Close)
	home := t.TempDir()
	writeHome(t, home, ".config/helm/repositories.yaml", "repositories:\n"+
		"- {name: echo, url: '"+echo.URL+"', username: "+mdUser+", password: "+mdPass+"}\n")
	f := newFleet(t)
	f.edit(t, "argocd/preprod/app-gateway.yaml", f.Charts.URL, echo.URL)
	f.commit(t, "the gateway's chart behind an echoing proxy")
	base, head := f.scenario(t)
	cmd := exec.Command(bin, "--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir(), "-o", "json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run()
	doc := parseJSON(t, out.String())
	var msg string
	for _, a := range doc.Apps {
		if a.Name == "ledger-gateway-preprod" {
			msg = a.Error
		}
	}
	if !strings.Contains(msg, "502") {
		t.Fatalf("the gateway's error %q does not come from the echoing repository\nstderr: %s", msg, errOut.String())
	}
	for _, f := range mdForms() {
		if strings.Contains(out.String()+errOut.String(), f) {
			t.Errorf("%q printed in %q", f, msg)
		}
	}
}

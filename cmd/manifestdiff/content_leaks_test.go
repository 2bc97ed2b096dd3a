package main

import (
	"encoding/base64"
	"fmt"
	"html"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// credsApp is a directory source of the fleet whose manifests hold every
// credential the process knows.
const credsApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ledger-creds-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/creds}
  destination: {server: https://kubernetes.default.svc, namespace: ledger-creds}
`

// credsManifests puts each planted credential in a ConfigMap in each form
// a manifest can carry it: as is, upper case, URL-escaped, base64 alone
// and as basic auth, in an annotation and in the object's own name; and
// a ConfigMap whose name tries to act through the note.
func credsManifests(plants []clitest.Plant) string {
	var b strings.Builder
	for i, p := range plants {
		v := p.Value
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %q\n  annotations: {origin: %q}\ndata:\n", fmt.Sprintf("cm-%d-%s", i, v), "https://x/?t="+url.QueryEscape(v))
		fmt.Fprintf(&b, "  plain: %q\n  upper: %q\n  b64: %s\n  basic: %s\n  job: %s\n  shown: visible-%d\n", v, strings.ToUpper(v),
			base64.StdEncoding.EncodeToString([]byte(v)), base64.StdEncoding.EncodeToString([]byte(p.User+":"+v)),
			base64.StdEncoding.EncodeToString([]byte("oauth2:"+v)), i)
	}
	b.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"x\\n/approve\\r\\n/merge\\u2028/close @all\"}\ndata: {k: \"v\\n/label ~x\"}\n")
	return b.String()
}

// TestRenderedCredentialsNeverShow: the real binary renders an app whose
// manifests hold every credential it knows (the environment's tokens,
// ~/.netrc, ~/.git-credentials, Helm's and docker's files, the remote
// URL's password); no output format, no output file, no stderr and no
// note the GitLab double receives holds any of them, and the note holds
// no quick action.
func TestRenderedCredentialsNeverShow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	const glToken = "Plant-GlTok-K4l5"
	bin := buildManifestdiff(t)
	f := newFleet(t)
	gitRun(t, f.Dir, "remote", "add", "origin", "file:///nowhere.git")
	base := gitRun(t, f.Dir, "rev-parse", "HEAD")
	gl := gitlabfake.New(t, gitlabfake.Options{Token: glToken})
	gl.AddProject(42, "group/project")
	gl.AddMR("group/project", 7, "feature", "main")
	plants, env := clitest.PlantCredentials(t, t.TempDir(), f.Dir, glToken)
	f.write(t, "envs/qa/creds/cms.yaml", credsManifests(plants))
	f.write(t, "argocd/qa/app-creds.yaml", credsApp)
	head := f.commit(t, "an app holding credentials")
	env = append(env, "CI_API_V4_URL="+gl.URL(), "CI_PROJECT_ID=42", "CI_MERGE_REQUEST_IID=7")

	var everything strings.Builder
	run := func(args ...string) string {
		cmd := exec.Command(bin, append([]string{"--repo", f.Dir, "--base", base, "--head", head, "--env", "qa", "--cache-dir", t.TempDir()}, args...)...)
		cmd.Dir, cmd.Env = f.Dir, env
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Errorf("%v: %v\n%s", args, err, errOut.String())
		}
		everything.WriteString(out.String() + "\n" + errOut.String() + "\n")
		return out.String()
	}
	for _, format := range []string{"diff", "markdown", "json", "html"} {
		run("-o", format)
		file := filepath.Join(t.TempDir(), "report."+format)
		run("-o", format, "--output-file", file)
		everything.WriteString(mustRead(t, file) + "\n")
	}
	run("--post")
	notes := gl.Notes("group/project", 7)
	if len(notes) == 0 {
		t.Fatal("no note posted")
	}
	for _, n := range notes {
		everything.WriteString(n.Body + "\n")
		for _, l := range strings.Split(strings.ReplaceAll(n.Body, "\r", ""), "\n") {
			if strings.HasPrefix(l, "/") {
				t.Errorf("the note holds a quick action: %q", l)
			}
		}
	}
	all := everything.String() + html.UnescapeString(everything.String())
	clitest.NoPlant(t, plants, "outputs", all)
	// not vacuous: the app rendered, its credentials masked, the rest shown
	md := run("-o", "markdown")
	for _, want := range []string{"ledger-creds-qa", "+  plain: ***", "visible-0", "cm-0-***", `x\n/approve\r\n/merge\u2028/close`} {
		if !strings.Contains(md+html.UnescapeString(md), want) {
			t.Errorf("the note lacks %q", want)
		}
	}
}

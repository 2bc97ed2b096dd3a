package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

const kustApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: kust-qa, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/kust}
  destination: {server: https://kubernetes.default.svc, namespace: kust}
`

// kustDeprecation is the one stderr line the kust-qa app's deprecated
// field gives, however often kustomize builds it.
const kustDeprecation = "manifestdiff: warning: env qa, app kust-qa: kustomization envs/qa/kust/kustomization.yaml: " +
	"'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.\n"

// helmCoalesce is the one stderr line the caps chart's values give: Helm
// quotes the chart value it ignores, a password, which is masked.
const helmCoalesce = "manifestdiff: warning: env qa, app caps-qa: destination for caps.conf.password is a table. Ignoring non-table value (***)\n"

// noisyFleet adds, at head, an app whose kustomization uses commonLabels
// and an in-repo chart whose values make Helm warn about a password; the
// base revision has neither.
func noisyFleet(t *testing.T) (f *fleet, base, head string) {
	f = newFleet(t)
	base = gitRun(t, f.Dir, "rev-parse", "HEAD")
	f.write(t, "argocd/qa/app-kust.yaml", kustApp)
	f.write(t, "envs/qa/kust/kustomization.yaml", "resources: [cm.yaml]\ncommonLabels: {team: a}\n")
	f.write(t, "envs/qa/kust/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}\n")
	withCapsChart(t, f)
	f.write(t, "envs/qa/caps/values.yaml", "conf:\n  password: Sup3r-S3cret-9k2\n")
	f.edit(t, "argocd/qa/app-caps.yaml", "path: envs/qa/caps}", "path: envs/qa/caps, helm: {valuesObject: {conf: {password: {vault: x}}}}}")
	return f, base, f.commit(t, "head: a deprecated kustomization, a chart helm warns about")
}

// TestLibraryNoticesOnStderr: the tools' warnings reach stderr through
// the command's logger, one line per fact naming env and app, --quiet
// keeping them (they are warnings), and never a value.
func TestLibraryNoticesOnStderr(t *testing.T) {
	f, base, head := noisyFleet(t)
	for _, quiet := range []bool{false, true} {
		args := []string{"--base", base, "--head", head, "-o", "json"}
		if quiet {
			args = append(args, "--quiet")
		}
		r := f.run(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", r.code, r.errOut)
		}
		if r.errOut != kustDeprecation+helmCoalesce && r.errOut != helmCoalesce+kustDeprecation {
			t.Errorf("quiet=%v: stderr\n%s\nwant exactly\n%s%s", quiet, r.errOut, kustDeprecation, helmCoalesce)
		}
	}
}

// checkLibraryStderr runs the built binary: the kustomize library's own
// lines on os.Stderr ("# Warning: ...", once per build) never show, the
// render's own notice does, once.
func checkLibraryStderr(t *testing.T, bin string) {
	f, base, head := noisyFleet(t)
	cmd := exec.Command(bin, "--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir(), "-o", "json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, errb.String())
	}
	got := errb.String()
	if strings.Contains(got, "# Warning") || strings.Count(got, "commonLabels") != 1 || strings.Contains(got, "Sup3r") ||
		!strings.Contains(got, kustDeprecation) || !strings.Contains(got, helmCoalesce) || strings.Count(got, "\n") != 2 {
		t.Errorf("stderr of the binary:\n%s\nwant exactly:\n%s%s", got, kustDeprecation, helmCoalesce)
	}
}

// On a terminal a warning first clears the progress line it would
// otherwise be glued to; progress resumes on the next line.
func TestNoticesClearTheProgressLine(t *testing.T) {
	f, base, head := noisyFleet(t)
	var out, errOut bytes.Buffer
	ios := &ioStreams{Out: &out, ErrOut: &errOut, ErrTTY: true}
	args := []string{"--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir(), "-o", "json"}
	if code := exitCode(ios, runArgs(context.Background(), args, ios, func(string) string { return "" })); code != 0 {
		t.Fatalf("exit %d; stderr:\n%q", code, errOut.String())
	}
	e := errOut.String()
	if !strings.Contains(e, "\r\x1b[K"+kustDeprecation) || !strings.Contains(e, "\r\x1b[K"+helmCoalesce) || !strings.Contains(e, "\rrendering 1/") {
		t.Errorf("stderr %q", e)
	}
}

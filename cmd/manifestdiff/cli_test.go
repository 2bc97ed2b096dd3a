package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
)

// manifestdiff renders with two Helm SDKs, and says so: Helm 4, the
// default (Argo CD 3.5 and later), first. A plain build (this test
// binary) reads them from its build information.
func TestVersionNamesBothHelmSDKs(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		_, err, out, errOut := parse(args...)
		if err != nil || errOut != "" || !strings.Contains(out, "\nhelm SDK: v4.3.1 (Argo CD >= 3.5), v3.22.0 (older)\n") {
			t.Errorf("%v: %v, stdout %q, stderr %q", args, err, out, errOut)
		}
	}
	_, err, out, _ := parse("version", "-o", "json")
	want := `"helm": [
    {
      "module": "helm.sh/helm/v4",
      "version": "v4.3.1",
      "argocd": ">= 3.5"
    },
    {
      "module": "helm.sh/helm/v3",
      "version": "v3.22.0",
      "argocd": "< 3.5"
    }
  ]`
	if err != nil || !strings.Contains(out, want) {
		t.Errorf("version -o json: %v\n%s", err, out)
	}
}

// One release build (manifestdiff links Helm: a long link) serves both
// checks of the real binary.
func TestReleaseBinary(t *testing.T) {
	bin := clitest.BuildRelease(t, "../..", "./cmd/manifestdiff")
	t.Run("version", func(t *testing.T) {
		clitest.CheckVersion(t, bin, "manifestdiff", true)
	})
	t.Run("library output on stderr", func(t *testing.T) { checkLibraryStderr(t, bin) })
	t.Run("kustomize helm charts", func(t *testing.T) { checkReleaseKustHelm(t, bin) })
	t.Run("temporary files", func(t *testing.T) { checkReleaseTempDir(t, bin) })
	t.Run("merge request confined to its repository", func(t *testing.T) { checkReleaseConfined(t, bin) })
	t.Run("interrupt", func(t *testing.T) { checkInterrupt(t, bin) })
	t.Run("runaways interrupted", func(t *testing.T) { checkRunawaysInterrupted(t, bin) })
	t.Run("huge archive", func(t *testing.T) { checkHugeArchive(t, bin) })
	t.Run("bash completion", func(t *testing.T) {
		f := newFleet(t)
		got := clitest.BashComplete(t, bin, f.Dir,
			"manifestdiff --ba",
			"manifestdiff -o ",
			"manifestdiff --output ",
			"manifestdiff --color n",
			"manifestdiff ver",
			"manifestdiff --fo",
		)
		want := [][]string{
			{"--base"},
			{"diff", "markdown", "json", "html"},
			{"diff", "markdown", "json", "html"},
			{"never"},
			{"version"},
			{}, // --format is deprecated and hidden
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("completions (-want +got):\n%s", diff)
		}
	})
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		_, err, out, errOut := parse("completion", shell)
		if err != nil || errOut != "" || !strings.Contains(out, "manifestdiff") || len(out) < 1000 {
			t.Errorf("completion %s: %v, %d bytes, stderr %q", shell, err, len(out), errOut)
		}
	}
}

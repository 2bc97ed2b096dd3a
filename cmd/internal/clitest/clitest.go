// Package clitest checks the command-line conventions of a real built
// binary: --version and the stamps `go version -m` reads, and bash
// completion sourced by a real bash. Only tests import it.
package clitest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const buildinfo = "github.com/gitops-promote/gitops-promote/internal/buildinfo"

// Release stamps, as a release build passes them to the linker.
const (
	Version = "v9.8.7"
	Commit  = "0123456789abcdef0123456789abcdef01234567"
	Date    = "2026-12-01T10:00:00Z"
)

// CheckVersion runs `tool --version`, `tool version` and `tool version -o
// json` on a release build, and `go version -m` on it. A binary that links
// Helm names both SDKs, Helm 4 (Argo CD 3.5 and later) first, with the
// versions `go version -m` shows; one that does not says none.
func CheckVersion(t *testing.T, bin, tool string, helmLinked bool) {
	t.Helper()
	flag := run(t, bin, "--version")
	verb := run(t, bin, "version")
	if flag != verb {
		t.Errorf("--version and version differ:\n%s\n%s", flag, verb)
	}
	for _, want := range []string{tool + " " + Version + "\n", "commit:   " + Commit + "\n", "built:    " + Date + "\n",
		"go:       go1."} {
		if !strings.Contains(flag, want) {
			t.Errorf("--version lacks %q:\n%s", want, flag)
		}
	}
	var info struct {
		Tool, Version, Commit, Date, DateKind, GoVersion string
		Helm                                             []struct{ Module, Version, ArgoCD string }
	}
	if err := json.Unmarshal([]byte(run(t, bin, "version", "-o", "json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Tool != tool || info.Version != Version || info.Commit != Commit || info.Date != Date || info.DateKind != "build" ||
		!strings.HasPrefix(info.GoVersion, "go1.") {
		t.Errorf("version -o json = %+v", info)
	}
	m := goVersionM(t, bin)
	for _, want := range []string{"mod\tgithub.com/gitops-promote/gitops-promote", buildinfo + ".version=" + Version,
		buildinfo + ".commit=" + Commit, buildinfo + ".date=" + Date} {
		if !strings.Contains(m, want) {
			t.Errorf("go version -m lacks %q:\n%s", want, m)
		}
	}
	if !helmLinked {
		if len(info.Helm) != 0 || !strings.Contains(flag, "\nhelm SDK: none (") || strings.Contains(m, "helm.sh/helm") {
			t.Errorf("a binary without Helm: --version says\n%s\njson %+v, go version -m:\n%s", flag, info.Helm, m)
		}
		return
	}
	if len(info.Helm) != 2 || info.Helm[0].Module != "helm.sh/helm/v4" || info.Helm[1].Module != "helm.sh/helm/v3" {
		t.Fatalf("version -o json lists the Helm SDKs %+v, want helm.sh/helm/v4 then helm.sh/helm/v3", info.Helm)
	}
	line := "\nhelm SDK: " + info.Helm[0].Version + " (Argo CD >= 3.5), " + info.Helm[1].Version + " (older)\n"
	if !strings.Contains(flag, line) {
		t.Errorf("--version lacks %q:\n%s", line, flag)
	}
	for _, sdk := range info.Helm {
		if !strings.HasPrefix(sdk.Version, "v"+sdk.Module[len(sdk.Module)-1:]+".") || !strings.Contains(m, "dep\t"+sdk.Module+"\t"+sdk.Version+"\t") {
			t.Errorf("go version -m and --version disagree on %s %s:\n%s", sdk.Module, sdk.Version, m)
		}
	}
}

func goVersionM(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, out)
	}
	return string(out)
}

func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s %s: %v, stderr %q", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// bashCompletion is where Debian's bash-completion package puts the
// functions (_get_comp_words_by_ref) cobra's bash script relies on, as
// every distribution that ships bash completion does.
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// BashComplete sources `tool completion bash` into a real bash and asks
// it to complete each line, as the shell does on TAB, with dir as the
// working directory; it returns the candidates for each line.
func BashComplete(t *testing.T, bin, dir string, lines ...string) [][]string {
	t.Helper()
	if _, err := os.Stat(bashCompletion); err != nil {
		t.Fatalf("%v: install the bash-completion package (apt-get install bash-completion)", err)
	}
	tool := filepath.Base(bin)
	var script strings.Builder
	script.WriteString("source " + bashCompletion + "\nsource <(" + tool + " completion bash) || exit 3\n")
	script.WriteString(`complete -p ` + tool + ` >/dev/null || exit 4
t() { COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<"$1"; [[ "$1" == *" " ]] && COMP_WORDS+=("");
  COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); __start_` + tool + ` 2>/dev/null; echo "${COMPREPLY[*]}"; }
`)
	for _, l := range lines {
		script.WriteString("t '" + l + "'\n")
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("bash answered %d lines for %d completions:\n%s", len(got), len(lines), out)
	}
	res := make([][]string, len(got))
	for i, g := range got {
		res[i] = strings.Fields(g)
	}
	return res
}

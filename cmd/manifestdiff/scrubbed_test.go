package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// TestEveryErrorIsScrubbed: every credential the process can know of
// (the environment's tokens, Helm's, docker's and git's credential files,
// the remote URL's password) is planted, and each error path that aborts
// a whole run is made to print it: usage, git, configuration, the chart
// settings, GitLab's. The real binary's stderr and stdout hold none of
// them in any form.
func TestEveryErrorIsScrubbed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	const glToken = "Plant-GlTok-B2c3"
	bin := buildManifestdiff(t)
	f := newFleet(t)
	gitRun(t, f.Dir, "remote", "add", "origin", "file:///nowhere.git")
	base := gitRun(t, f.Dir, "rev-parse", "HEAD")
	gl := gitlabfake.New(t, gitlabfake.Options{Token: glToken})
	gl.AddProject(42, "group/project")
	plants, env := clitest.PlantCredentials(t, t.TempDir(), f.Dir, glToken)
	run := func(extra []string, args ...string) result {
		cmd := exec.Command(bin, append([]string{"--repo", f.Dir, "--cache-dir", t.TempDir()}, args...)...)
		cmd.Dir = f.Dir
		cmd.Env = append(append([]string{}, env...), extra...)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		cmd.Run()
		return result{cmd.ProcessState.ExitCode(), out.String(), errOut.String()}
	}
	paths := []struct {
		name string
		run  func(secret string) result
	}{
		{"usage: a bad flag value, before the run starts", func(s string) result { return run(nil, "--color", s) }},
		{"usage: an unknown environment", func(s string) result { return run(nil, "--base", base, "--env", s) }},
		{"git: a revision that does not resolve", func(s string) result { return run(nil, "--base", s, "--head", base) }},
		{"charts: a bad HELM_REPO_URL", func(s string) result {
			return run([]string{"HELM_REPO_URL=ftp://" + strings.ReplaceAll(s, " ", "%20")}, "--base", base)
		}},
		{"gitlab: a merge request number that is not one", func(s string) result {
			return run([]string{"CI_API_V4_URL=" + gl.URL(), "CI_PROJECT_ID=42", "CI_MERGE_REQUEST_IID=" + s}, "--base", base, "--post")
		}},
		{"gitlab: a project it does not know", func(s string) result {
			return run([]string{"CI_API_V4_URL=" + gl.URL(), "CI_PROJECT_ID=" + s, "CI_MERGE_REQUEST_IID=7"}, "--base", base, "--post")
		}},
		{"config: an unknown key at head", func(s string) result {
			f.write(t, ".promote.yaml", f.read(t, ".promote.yaml")+"\n"+s+": 1\n")
			head := f.commit(t, "a broken config")
			defer gitRun(t, f.Dir, "reset", "-q", "--hard", base)
			return run(nil, "--base", base, "--head", head)
		}},
	}
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			for _, p := range plants {
				r := path.run(p.Value)
				if r.code != 1 || !strings.Contains(r.errOut, "***") {
					t.Errorf("%s: exit %d, want 1 and the credential masked in the error:\n%s", p.Source, r.code, r.errOut)
				}
				clitest.NoPlant(t, plants, p.Source, r.out+r.errOut)
			}
		})
	}
}

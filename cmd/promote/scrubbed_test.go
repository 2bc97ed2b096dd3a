package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// TestEveryErrorIsScrubbed: every credential the process can know of
// (the environment's tokens, Helm's, docker's and git's credential files,
// the remote URL's password) is planted, and each error path that aborts
// a whole run is made to print it: usage and configuration errors, git's,
// GitLab's, the chart settings'. The real binary's stderr and stdout hold
// none of them in any form.
func TestEveryErrorIsScrubbed(t *testing.T) {
	const glToken = "Plant-GlTok-B2c3"
	f := newFleet(t)
	gl := gitlabfake.New(t, gitlabfake.Options{Token: glToken})
	plants, env := clitest.PlantCredentials(t, t.TempDir(), f.Dir, glToken)
	config := filepath.Join(f.Dir, ".promote.yaml")
	original, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	paths := []struct {
		name string
		run  func(secret string) result
	}{
		{"usage: a bad flag value, before the run starts", func(s string) result {
			return runPromote(t, f.Dir, env, "plan", "--from", "qa", "--to", "preprod", "-o", s)
		}},
		{"usage: an unknown environment", func(s string) result {
			return runPromote(t, f.Dir, env, "plan", "--from", s, "--to", "preprod")
		}},
		{"git: a revision that does not resolve", func(s string) result {
			return runPromote(t, f.Dir, env, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--source-rev", s)
		}},
		{"charts: a bad HELM_REPO_URL", func(s string) result {
			// HELM_REPO_URL is a list split at spaces: a secret holding one
			// is two words there
			return runPromote(t, f.Dir, append(env, "HELM_REPO_URL=ftp://"+strings.ReplaceAll(s, " ", "%20")), "apply", "--from", "qa", "--to", "preprod")
		}},
		{"gitlab: a project it does not know", func(s string) result {
			return runPromote(t, f.Dir, append(env, "CI_API_V4_URL="+gl.URL(), "CI_PROJECT_ID="+s),
				"apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--merge-request")
		}},
		{"config: an unknown key", func(s string) result {
			if err := os.WriteFile(config, append(append([]byte{}, original...), []byte("\n"+s+": 1\n")...), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(config, original, 0o644)
			return runPromote(t, f.Dir, env, "plan", "--from", "qa", "--to", "preprod")
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

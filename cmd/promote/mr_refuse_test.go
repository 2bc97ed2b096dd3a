package main

import (
	"strings"
	"testing"
)

// Bad settings fail before anything is pushed, with one line naming what
// to fix: missing settings before GitLab is asked anything, a rejected
// token or an unknown project at the first API call, which comes before
// the branch push (a pushed branch would then carry no merge request).
func TestMergeRequestRefusals(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		unset   []string // environment variables to leave out
		token   string   // GITLAB_TOKEN to use instead of the accepted one
		project string   // CI_PROJECT_ID to use instead of the fake's project
		wants   []string
		usage   bool // a usage error: it points at --help
		asks    bool // GitLab is asked before the failure
	}{
		{name: "push and merge request", args: []string{"--push"}, wants: []string{"--push", "--merge-request"}, usage: true},
		{name: "no api url", unset: []string{"CI_API_V4_URL"}, wants: []string{"CI_API_V4_URL", "GitLab CI sets CI_API_V4_URL"}},
		{name: "no project", unset: []string{"CI_PROJECT_ID"}, wants: []string{"CI_PROJECT_ID", "<project ID or group/project>"}},
		{name: "no token", unset: []string{"GITLAB_TOKEN"}, wants: []string{"GitLab does not set GITLAB_TOKEN",
			"project or group access token with the api scope", "Developer role", "masked CI/CD variable"}},
		// every missing variable is named at once, not one per run
		{name: "nothing set", unset: []string{"CI_API_V4_URL", "CI_PROJECT_ID", "GITLAB_TOKEN"},
			wants: []string{"--merge-request needs CI_API_V4_URL, CI_PROJECT_ID and GITLAB_TOKEN in the environment",
				"GitLab CI sets CI_API_V4_URL and CI_PROJECT_ID in every job", "GitLab does not set GITLAB_TOKEN"}},
		{name: "rejected token", token: "glpat-REVOKEDtoken0000", asks: true,
			wants: []string{mrProject, "401", "api scope"}},
		{name: "unknown project", project: "group/no-such-project", asks: true,
			wants: []string{"group/no-such-project", "404", "CI_PROJECT_ID"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMRFleet(t)
			for _, name := range tc.unset {
				delete(m.env, name)
			}
			if tc.token != "" {
				m.env["GITLAB_TOKEN"] = tc.token
			}
			if tc.project != "" {
				m.env["CI_PROJECT_ID"] = tc.project
			}
			before := m.snapshot(t)
			refs := gitRun(t, m.Remote, "show-ref")
			r := m.run(t, m.env, append(applyMR, tc.args...)...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
			}
			// The error is the last line; progress log lines (e.g.
			// "pushed") may come before it.
			lines := strings.Split(strings.TrimSuffix(r.errOut, "\n"), "\n")
			line := lines[len(lines)-1]
			if tc.usage && !strings.HasSuffix(line, "; see 'promote apply --help'") {
				t.Errorf("usage error does not point at --help: %s", line)
			}
			for _, w := range tc.wants {
				if !strings.Contains(line, w) {
					t.Errorf("error line lacks %q: %s", w, line)
				}
			}
			for _, tok := range []string{m.gl.Token(), tc.token} {
				if tok != "" && strings.Contains(r.out+r.errOut, tok) {
					t.Errorf("token %q printed:\n%s%s", tok, r.out, r.errOut)
				}
			}
			if after := gitRun(t, m.Remote, "show-ref"); after != refs {
				t.Errorf("the remote changed:\n%s", after)
			}
			if after := m.snapshot(t); after != before {
				t.Errorf("target branch, local branch or work tree changed: %+v -> %+v", before, after)
			}
			if !tc.asks && m.gl.Calls("total") != 0 {
				t.Errorf("asked GitLab %v before refusing", m.gl.AllCalls())
			}
			if len(m.gl.MRs(mrProject)) != 0 {
				t.Errorf("merge request opened: %+v", m.gl.MRs(mrProject))
			}
		})
	}
}

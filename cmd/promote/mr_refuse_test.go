package main

import (
	"strings"
	"testing"
)

// Bad settings fail before anything is pushed or asked of GitLab, with one
// line naming what to fix; a rejected token fails after the push (the
// branch is harmless) and names the project and the api scope.
func TestMergeRequestRefusals(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		unset  string // environment variable to leave out
		token  string // GITLAB_TOKEN to use instead of the accepted one
		wants  []string
		usage  bool // usage text follows the error line
		pushes bool // the branch reaches the remote before the failure
	}{
		{name: "push and merge request", args: []string{"--push"}, wants: []string{"--push", "--merge-request"}, usage: true},
		{name: "no api url", unset: "CI_API_V4_URL", wants: []string{"CI_API_V4_URL"}},
		{name: "no project", unset: "CI_PROJECT_ID", wants: []string{"CI_PROJECT_ID"}},
		{name: "no token", unset: "GITLAB_TOKEN", wants: []string{"GITLAB_TOKEN"}},
		{name: "rejected token", token: "glpat-REVOKEDtoken0000", pushes: true,
			wants: []string{mrProject, "401", "api scope", promoteBranch}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMRFleet(t)
			delete(m.env, tc.unset)
			if tc.token != "" {
				m.env["GITLAB_TOKEN"] = tc.token
			}
			before := m.snapshot(t)
			refs := gitRun(t, m.Remote, "show-ref")
			r := m.run(t, m.env, append(applyMR, tc.args...)...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
			}
			// The error is the last line, or the first when usage follows;
			// progress log lines (e.g. "pushed") may come before it.
			lines := strings.Split(strings.TrimSuffix(r.errOut, "\n"), "\n")
			line := lines[len(lines)-1]
			if tc.usage {
				line = lines[0]
				if !strings.HasPrefix(lines[1], "usage:") {
					t.Errorf("no usage after the error line:\n%s", r.errOut)
				}
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
			if pushed := gitRun(t, m.Remote, "show-ref") != refs; pushed != tc.pushes {
				t.Errorf("pushed %v, want %v; refs:\n%s", pushed, tc.pushes, gitRun(t, m.Remote, "show-ref"))
			}
			if after := m.snapshot(t); after != before {
				t.Errorf("target branch, local branch or work tree changed: %+v -> %+v", before, after)
			}
			if !tc.pushes && m.gl.Calls("total") != 0 {
				t.Errorf("asked GitLab %v before refusing", m.gl.AllCalls())
			}
			if len(m.gl.MRs(mrProject)) != 0 {
				t.Errorf("merge request opened: %+v", m.gl.MRs(mrProject))
			}
		})
	}
}

package main

import (
	"strings"
	"testing"
)

// --post misconfigured fails before rendering (no chart fetched, GitLab not
// asked) with one line naming the variable; a rejected token fails with one
// line naming the project, the merge request and the api scope. The token
// is printed in neither case.
func TestPostErrors(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string // overrides; "" removes the variable
		rendered bool              // the report is rendered before the failure
		wants    []string
	}{
		{name: "no api url", env: map[string]string{"CI_API_V4_URL": ""}, wants: []string{"CI_API_V4_URL"}},
		{name: "no project", env: map[string]string{"CI_PROJECT_ID": ""}, wants: []string{"CI_PROJECT_ID"}},
		{name: "no merge request", env: map[string]string{"CI_MERGE_REQUEST_IID": ""},
			wants: []string{"CI_MERGE_REQUEST_IID", "only in merge request pipelines", "merge_request_event"}},
		{name: "no token", env: map[string]string{"GITLAB_TOKEN": ""}, wants: []string{"GitLab does not set GITLAB_TOKEN",
			"project or group access token with the api scope", "Reporter role", "masked CI/CD variable"}},
		// every missing variable at once, not one per failed pipeline
		{name: "outside GitLab CI", env: map[string]string{"CI_API_V4_URL": "", "CI_PROJECT_ID": "", "CI_MERGE_REQUEST_IID": "", "GITLAB_TOKEN": ""},
			wants: []string{"--post needs CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID and GITLAB_TOKEN in the environment",
				"GitLab CI sets CI_API_V4_URL and CI_PROJECT_ID in every job", "only in merge request pipelines", "GitLab does not set GITLAB_TOKEN"}},
		{name: "rejected token", env: map[string]string{"GITLAB_TOKEN": "glpat-REVOKEDtoken0000"}, rendered: true,
			wants: []string{postProject, "!7", "401", "api scope"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPostFleet(t, postProject)
			base, head := p.scenario(t)
			for k, v := range tc.env {
				p.env[k] = v
			}
			r := p.post(t, 0, "--base", base, "--head", head)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.errOut)
			}
			if lines := strings.Split(strings.TrimSuffix(r.errOut, "\n"), "\n"); len(lines) != 1 {
				t.Errorf("stderr is %d lines, want 1:\n%s", len(lines), r.errOut)
			}
			for _, w := range append(tc.wants, "manifestdiff: ") {
				if !strings.Contains(r.errOut, w) {
					t.Errorf("error lacks %q: %s", w, r.errOut)
				}
			}
			if rendered := p.Charts.requests() > 0; rendered != tc.rendered {
				t.Errorf("chart repository asked %d times; rendered before failing = %v, want %v",
					p.Charts.requests(), rendered, tc.rendered)
			}
			if !tc.rendered && p.gl.Calls("total") != 0 {
				t.Errorf("asked GitLab %v before failing", p.gl.AllCalls())
			}
			if len(p.ours()) != 0 {
				t.Errorf("note written: %+v", p.ours())
			}
			for _, tok := range []string{p.gl.Token(), tc.env["GITLAB_TOKEN"]} {
				if tok != "" && strings.Contains(r.out+r.errOut, tok) {
					t.Errorf("token %q printed:\n%s%s", tok, r.out, r.errOut)
				}
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// postFleet is a fleet with a GitLab double holding merge request !7 and
// the environment a GitLab merge request pipeline exports.
type postFleet struct {
	*fleet
	gl  *gitlabfake.Server
	env map[string]string
}

const (
	postProject = "group/project"
	postIID     = 7
)

func newPostFleet(t *testing.T, project string) *postFleet {
	t.Helper()
	gl := gitlabfake.New(t, gitlabfake.Options{})
	gl.AddProject(42, postProject)
	gl.AddMR(postProject, postIID, "feature", "main")
	return &postFleet{fleet: newFleet(t), gl: gl, env: map[string]string{
		"CI_API_V4_URL": gl.URL(), "CI_PROJECT_ID": project, "CI_MERGE_REQUEST_IID": "7",
		"GITLAB_TOKEN": gl.Token(),
	}}
}

// post runs manifestdiff --post in process like fleet.run, with the note
// page size forced to pageLimit when it is not 0 (no flag sets it: the
// real limit is a million characters).
func (p *postFleet) post(t *testing.T, pageLimit int, args ...string) result {
	t.Helper()
	args = append([]string{"--repo", p.Dir, "--cache-dir", t.TempDir(), "--post"}, args...)
	var out, errOut bytes.Buffer
	ios := &ioStreams{Out: &out, ErrOut: &errOut}
	getenv := func(k string) string { return p.env[k] }
	root := newRootCmd(ios, func(ctx context.Context, o *options) error {
		o.pageLimit = pageLimit
		return run(ctx, o, ios, getenv)
	})
	root.SetArgs(args)
	_, err := root.ExecuteC()
	return result{exitCode(ios, err), out.String(), errOut.String()}
}

// ours returns the notes carrying the report's marker, oldest first.
func (p *postFleet) ours() []gitlabfake.Note {
	var out []gitlabfake.Note
	for _, n := range p.gl.Notes(postProject, postIID) {
		if strings.HasPrefix(n.Body, report.Marker+"\n") {
			out = append(out, n)
		}
	}
	return out
}

// others returns every note not carrying the marker.
func (p *postFleet) others() []gitlabfake.Note {
	var out []gitlabfake.Note
	for _, n := range p.gl.Notes(postProject, postIID) {
		if !strings.HasPrefix(n.Body, report.Marker+"\n") {
			out = append(out, n)
		}
	}
	return out
}

// noToken checks that the token reached GitLab only in its auth header and
// shows up in no output the job keeps.
func (p *postFleet) noToken(t *testing.T, outputs ...string) {
	t.Helper()
	tok := p.gl.Token()
	for i, o := range outputs {
		if strings.Contains(o, tok) {
			t.Errorf("output %d carries the token:\n%s", i, o)
		}
	}
	if leaks := p.gl.Leaks(tok); len(leaks) > 0 {
		t.Errorf("token sent outside the auth header or stored: %v", leaks)
	}
}

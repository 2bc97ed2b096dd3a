package gitlab

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// checkOneLine asserts the house rules for errors shown to CI users.
func checkOneLine(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	t.Logf("error: %s", msg)
	if strings.Contains(msg, "\n") || strings.Contains(msg, fakeToken) || strings.Contains(msg, "SECRET") {
		t.Errorf("error has a newline or the token: %q", msg)
	}
	if msg[0] < 'a' || msg[0] > 'z' {
		t.Errorf("error does not start lower case: %q", msg)
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
}

func TestAuthAndNotFoundErrors(t *testing.T) {
	mr := MR{Project: "group/project", IID: 7}
	cases := []struct {
		name   string
		setup  func(f *gitlabfake.Server)
		mr     MR
		target error
		wants  []string
	}{
		{"401 bad token", func(f *gitlabfake.Server) { f.SetToken("glpat-other") }, mr, ErrAuth,
			[]string{"group/project", "!7", "401", "api scope", "reporter", "developer"}},
		{"403 read-only token", func(f *gitlabfake.Server) { f.SetReadOnly(true) }, mr, ErrAuth,
			[]string{"group/project", "!7", "insufficient scope or role", "api scope"}},
		{"404 project", nil, MR{Project: "nope/missing", IID: 7}, ErrNotFound,
			[]string{"nope/missing", "!7", "404", "CI_PROJECT_ID", "token"}},
		{"404 merge request", nil, MR{Project: "42", IID: 99}, ErrNotFound,
			[]string{"project 42", "!99", "CI_MERGE_REQUEST_IID"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.AddMR(testProj, 7, "feature", "main")
			f.AddNote(testProj, 7, "project_42_bot", testMarker+"\nold", false)
			var slept []time.Duration
			c := fakeClient(t, f, &slept) // built with fakeToken
			if tc.setup != nil {
				tc.setup(f)
			}
			_, err := c.UpsertNote(context.Background(), tc.mr, testMarker, []string{"new"})
			if !errors.Is(err, tc.target) {
				t.Fatalf("err %v, want %v", err, tc.target)
			}
			checkOneLine(t, err, tc.wants...)
			if len(slept) != 0 {
				t.Errorf("retried a %s: slept %v", tc.name, slept)
			}
		})
	}
}

func TestErrorsNeverCarryTheToken(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	c := fakeClient(t, f, nil)
	f.FailNextBody("GET", "mr", 400, nil, `{"message":"bad header PRIVATE-TOKEN: `+fakeToken+`\nsecond line"}`)
	_, err := c.UpsertNote(context.Background(), MR{Project: "group/project", IID: 7}, testMarker, []string{"x"})
	checkOneLine(t, err, "***", "400")
}

func TestNewValidatesOptions(t *testing.T) {
	if _, err := New(Options{BaseURL: "https://gitlab.example.com/api/v4"}); !errors.Is(err, ErrAuth) {
		t.Errorf("missing token: %v", err)
	}
	if _, err := New(Options{Token: fakeToken}); err == nil {
		t.Error("missing url accepted")
	}
	_, err := New(Options{Token: fakeToken, BaseURL: "gitlab.example.com"})
	checkOneLine(t, err, "http")
}

package gitlab

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// The GitLab double lives in internal/testutil/gitlabfake so the commands'
// tests drive the same one; these helpers give this package's tests one
// project, 42 "group/project", and a client with an injected sleep.

const (
	fakeToken = gitlabfake.DefaultToken
	testProj  = "42"
)

func newFake(t *testing.T) *gitlabfake.Server {
	return newFakeWith(t, gitlabfake.Options{})
}

func newFakeWith(t *testing.T, opt gitlabfake.Options) *gitlabfake.Server {
	t.Helper()
	f := gitlabfake.New(t, opt)
	f.AddProject(42, "group/project")
	return f
}

// fakeClient builds a client for f whose sleeps return at once and are
// recorded in slept when it is not nil.
func fakeClient(t *testing.T, f *gitlabfake.Server, slept *[]time.Duration) *Client {
	t.Helper()
	var mu sync.Mutex
	c, err := New(Options{BaseURL: f.URL(), Token: fakeToken, HTTP: f.Client(),
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			if slept != nil {
				*slept = append(*slept, d)
			}
			return ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// addForeignNotes adds n notes by another user, the first a system note.
func addForeignNotes(f *gitlabfake.Server, iid int64, n int) {
	for i := range n {
		f.AddNote(testProj, iid, "reviewer", "looks good "+strconv.Itoa(i), i == 0)
	}
}

// marked returns the bodies of the notes carrying the marker, oldest first.
func marked(f *gitlabfake.Server, iid int64) []string {
	var out []string
	for _, n := range f.Notes(testProj, iid) {
		if strings.HasPrefix(n.Body, testMarker+"\n") {
			out = append(out, n.Body)
		}
	}
	return out
}

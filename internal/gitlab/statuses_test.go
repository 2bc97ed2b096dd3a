package gitlab

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

const (
	shaA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	shaB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	shaC = "cccccccccccccccccccccccccccccccccccccccc"
)

func TestCommitStatusesPaginatesAndKeepsLatest(t *testing.T) {
	f := newFakeWith(t, gitlabfake.Options{PerPage: 2})
	f.AddCommit(testProj, shaA)
	f.SetNow(time.Date(2025, 1, 8, 10, 0, 0, 0, time.UTC))
	for _, app := range []string{"a", "b", "c", "d", "e"} {
		f.AddStatus(testProj, shaA, "argocd/"+app, "running", "Synced Progressing", "")
	}
	f.AddStatus(testProj, shaA, "argocd/c", "success", "Synced Healthy", "https://argocd.example/applications/c")
	// a finished status posted again is retried by a new one
	f.AddStatus(testProj, shaA, "argocd/c", "failed", "Synced Degraded", "")
	c := fakeClient(t, f, nil)
	got, err := c.CommitStatuses(context.Background(), testProj, shaA)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name+"="+s.Status)
	}
	want := []string{"argocd/a=running", "argocd/b=running", "argocd/d=running", "argocd/e=running", "argocd/c=failed"}
	if !slices.Equal(names, want) {
		t.Errorf("statuses %v, want %v", names, want)
	}
	if n := f.Calls("GET statuses"); n != 3 {
		t.Errorf("%d requests for 5 statuses at 2 a page, want 3", n)
	}
	if c := got[4]; c.Description != "Synced Degraded" || c.CreatedAt.IsZero() || c.FinishedAt.IsZero() || c.SHA != shaA {
		t.Errorf("converted status: %+v", c)
	}
	if all := f.Statuses(testProj, shaA); len(all) != 6 {
		t.Errorf("server keeps %d statuses, want 6 (one retried)", len(all))
	}
}

func TestCommitStatusesRetriesAndFails(t *testing.T) {
	f := newFake(t)
	f.AddCommit(testProj, shaA)
	f.AddStatus(testProj, shaA, "argocd/a", "success", "", "")
	var slept []time.Duration
	c := fakeClient(t, f, &slept)
	ctx := context.Background()

	f.FailNext(http.MethodGet, "statuses", http.StatusBadGateway, nil)
	f.FailNext(http.MethodGet, "statuses", http.StatusTooManyRequests, http.Header{"Retry-After": {"3"}})
	if got, err := c.CommitStatuses(ctx, testProj, shaA); err != nil || len(got) != 1 {
		t.Fatalf("after 502 and 429: %v, %v", got, err)
	}
	if len(slept) != 2 || slept[1] < 3*time.Second {
		t.Errorf("slept %v, want two waits, the second honouring Retry-After: 3", slept)
	}

	f.FailNextBody(http.MethodGet, "statuses", http.StatusForbidden, nil,
		`{"error":"insufficient_scope","error_description":"The request requires higher privileges than provided by the access token.","scope":"read_api api"}`)
	_, err := c.CommitStatuses(ctx, testProj, shaA)
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "list statuses of commit aaaaaaaaaaaa in project 42") ||
		!strings.Contains(err.Error(), "403") {
		t.Errorf("403: %v", err)
	}
	f.SetToken("glpat-other")
	if _, err := c.CommitStatuses(ctx, testProj, shaA); !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "401") {
		t.Errorf("revoked token: %v", err)
	}
	if strings.Contains(err.Error(), fakeToken) || len(f.Leaks(fakeToken)) > 0 {
		t.Errorf("token leaked: %v %v", err, f.Leaks(fakeToken))
	}
}

func TestCommitStatusesUnknownCommitAndProject(t *testing.T) {
	f := newFake(t)
	c := fakeClient(t, f, nil)
	ctx := context.Background()
	if _, err := c.CommitStatuses(ctx, testProj, shaB); !errors.Is(err, ErrNotFound) {
		t.Errorf("commit GitLab does not know: %v, want ErrNotFound", err)
	}
	visited := 0
	n, err := WalkStatuses(ctx, c, testProj, slices.Values([]string{shaB}), 5, func(_ string, st []CommitStatus) bool {
		visited += 1 + len(st)
		return true
	})
	if err != nil || n != 1 || visited != 1 {
		t.Errorf("walk over a commit GitLab does not know: n=%d visited=%d err=%v; want it listed with no statuses", n, visited, err)
	}
	if _, err := WalkStatuses(ctx, c, "99", slices.Values([]string{shaB}), 5, nil); !errors.Is(err, ErrNotFound) ||
		f.Calls("GET statuses") != 2 {
		t.Errorf("unknown project: %v (status listings %d), want ErrNotFound before any listing", err, f.Calls("GET statuses"))
	}
}

func TestWalkStatusesIsBounded(t *testing.T) {
	f := newFake(t)
	f.AddCommit(testProj, shaA, shaB, shaC)
	f.AddStatus(testProj, shaB, "argocd/x", "success", "", "")
	c := fakeClient(t, f, nil)
	shas := slices.Values([]string{shaA, shaB, shaC})
	var seen []string
	n, err := WalkStatuses(context.Background(), c, testProj, shas, 10, func(sha string, st []CommitStatus) bool {
		seen = append(seen, sha[:1])
		return len(st) == 0 // stop at the first commit with statuses
	})
	if err != nil || n != 2 || strings.Join(seen, "") != "ab" {
		t.Errorf("walk: n=%d seen=%v err=%v, want a then b", n, seen, err)
	}
	n, _ = WalkStatuses(context.Background(), c, testProj, shas, 1, func(string, []CommitStatus) bool { return true })
	if n != 1 || f.Calls("GET statuses") != 3 {
		t.Errorf("limit 1 listed %d commits (requests %d), want 1 (3 in all)", n, f.Calls("GET statuses"))
	}
}

package gitlab

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterThenSuccess(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	var slept []time.Duration
	c := fakeClient(t, f, &slept)
	f.FailNextBody("POST", "notes", 429, http.Header{"Retry-After": {"3"}}, `{"message":"429 Too Many Requests"}`)

	res := upsert(t, c, MR{Project: "group/project", IID: 7}, "diff")
	if res.Created != 1 || len(marked(f, 7)) != 1 {
		t.Fatalf("%+v, %d notes", res, len(marked(f, 7)))
	}
	if len(slept) != 1 || slept[0] < 3*time.Second || slept[0] > 3*time.Second+300*time.Millisecond {
		t.Fatalf("slept %v, want Retry-After 3s plus at most 10%% jitter", slept)
	}
	if f.Calls("POST notes") != 2 {
		t.Errorf("POST notes %d times, want 2", f.Calls("POST notes"))
	}
}

func TestServerErrorsExhaustRetries(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	var slept []time.Duration
	c := fakeClient(t, f, &slept)
	for range 6 {
		f.FailNextBody("GET", "mr", 502, nil, "<html>bad gateway</html>")
	}
	_, err := c.UpsertNote(context.Background(), MR{Project: "group/project", IID: 7}, testMarker, []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "502") || !strings.Contains(err.Error(), "gave up after 6 attempts") {
		t.Fatalf("err = %v", err)
	}
	if len(slept) != 5 || f.Calls("GET mr") != 6 {
		t.Fatalf("slept %v over %d requests; want 5 sleeps, 6 requests", slept, f.Calls("GET mr"))
	}
	for i, d := range slept {
		base := backoffBase << i
		if d < base/2 || d > base {
			t.Errorf("sleep %d = %v, want within [%v, %v]", i, d, base/2, base)
		}
	}
}

func TestRetryBudgetNotExceeded(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	var slept []time.Duration
	c := fakeClient(t, f, &slept)
	f.FailNextBody("GET", "mr", 429, http.Header{"Retry-After": {"120"}}, `{"message":"429 Too Many Requests"}`)
	_, err := c.UpsertNote(context.Background(), MR{Project: "group/project", IID: 7}, testMarker, []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "retry budget") || len(slept) != 0 {
		t.Fatalf("err = %v, slept %v; want an error without sleeping past the 60s budget", err, slept)
	}
}

func TestNoRetryOnClientErrors(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	var slept []time.Duration
	c := fakeClient(t, f, &slept)
	f.FailNextBody("GET", "mr", 422, nil, `{"message":"unprocessable"}`)
	_, err := c.UpsertNote(context.Background(), MR{Project: "group/project", IID: 7}, testMarker, []string{"x"})
	if err == nil || len(slept) != 0 || f.Calls("GET mr") != 1 {
		t.Fatalf("err %v, slept %v, %d requests", err, slept, f.Calls("GET mr"))
	}
}

func TestBackoffHonoursServerHints(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name     string
		h        http.Header
		min, max time.Duration
	}{
		{"retry-after seconds", http.Header{"Retry-After": {"10"}}, 10 * time.Second, 11 * time.Second},
		{"retry-after date", http.Header{"Retry-After": {now.Add(20 * time.Second).Format(http.TimeFormat)}},
			20 * time.Second, 21 * time.Second},
		{"ratelimit-reset", http.Header{"Ratelimit-Reset": {strconv.FormatInt(now.Add(30*time.Second).Unix(), 10)}},
			30 * time.Second, 31 * time.Second},
		{"retry-after in the past", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, 0},
		{"garbage falls back to exponential", http.Header{"Retry-After": {"soon"}}, backoffBase << 2 / 2, backoffBase << 2},
		{"capped", nil, backoffCap / 2, backoffCap},
	}
	for _, tc := range cases {
		attempt := 2
		if tc.name == "capped" {
			attempt = 40
		}
		for range 50 {
			if d := backoff(attempt, tc.h, now); d < tc.min || d > tc.max {
				t.Fatalf("%s: %v not in [%v, %v]", tc.name, d, tc.min, tc.max)
			}
		}
	}
}

func TestContextCancelStopsRetrying(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(Options{BaseURL: f.URL(), Token: fakeToken, HTTP: f.Client(),
		Sleep: func(context.Context, time.Duration) error { cancel(); return context.Canceled }})
	if err != nil {
		t.Fatal(err)
	}
	f.FailNextBody("GET", "mr", 503, nil, "")
	_, err = c.UpsertNote(ctx, MR{Project: "group/project", IID: 7}, testMarker, []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "context canceled") || f.Calls("GET mr") != 1 {
		t.Fatalf("err %v after %d requests", err, f.Calls("GET mr"))
	}
}

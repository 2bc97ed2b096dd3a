// Package gitlab is the small slice of the GitLab REST API that the
// commands need: one sticky merge request note (possibly split into pages)
// found again by a hidden marker, and one open merge request per source
// branch. It wraps gitlab.com/gitlab-org/api/client-go, replaces its retry
// loop with one that is bounded in count and time and whose sleep can be
// injected, and turns API failures into one-line errors that say what to
// fix. It never prints and never puts the token in an error.
package gitlab

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Sentinels, matched with errors.Is.
var (
	// ErrAuth: the token was rejected (401) or lacks a scope or role (403).
	ErrAuth = errors.New("gitlab denied access")
	// ErrNotFound: the project or merge request does not exist or is
	// invisible to the token.
	ErrNotFound = errors.New("gitlab resource not found")
	// ErrConflict: GitLab refused a write that clashes with existing state.
	ErrConflict = errors.New("gitlab conflict")
	// ErrTooLarge: a note body is over GitLab's limit.
	ErrTooLarge = errors.New("note too large")
)

// API is what the commands use, so they can be tested with a fake.
type API interface {
	UpsertNote(ctx context.Context, mr MR, marker string, pages []string) (NoteResult, error)
	CheckProject(ctx context.Context, project string) error
	UpsertMR(ctx context.Context, spec MRSpec) (MRResult, error)
	CloseMR(ctx context.Context, spec MRSpec, comment string) (MRResult, bool, error)
}

var _ API = (*Client)(nil)

// Options configures New. Only BaseURL and Token are required.
type Options struct {
	BaseURL string // CI_API_V4_URL, e.g. https://gitlab.example.com/api/v4
	Token   string // GITLAB_TOKEN; never logged, never in errors
	HTTP    *http.Client
	// MaxRetries bounds retries of one request after the first attempt
	// (default 5); MaxWait bounds the total time slept between them
	// (default 60s). A wait GitLab asks for beyond the budget is not slept.
	MaxRetries int
	MaxWait    time.Duration
	// Sleep waits between attempts; tests inject one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client talks to one GitLab instance with one token.
type Client struct {
	gl    *gl.Client
	token string
	retry retryPolicy
}

// New checks the options and builds a client; it makes no request.
func New(opt Options) (*Client, error) {
	if strings.TrimSpace(opt.Token) == "" {
		return nil, fmt.Errorf("gitlab client: no token given (set GITLAB_TOKEN): %w", ErrAuth)
	}
	if opt.BaseURL == "" {
		return nil, errors.New("gitlab client: no api url given (CI_API_V4_URL)")
	}
	if !strings.HasPrefix(opt.BaseURL, "http://") && !strings.HasPrefix(opt.BaseURL, "https://") {
		return nil, fmt.Errorf("gitlab client: api url %q must start with http:// or https://", scrub.URL(opt.BaseURL))
	}
	if opt.MaxRetries <= 0 {
		opt.MaxRetries = 5
	}
	if opt.MaxWait <= 0 {
		opt.MaxWait = 60 * time.Second
	}
	if opt.Sleep == nil {
		opt.Sleep = sleepCtx
	}
	base, err := url.Parse(opt.BaseURL)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("gitlab client: api url %s is not a URL", scrub.URL(opt.BaseURL))
	}
	hc := homeOnly(opt.HTTP, base)
	// client-go's own retries use real timers and an unbounded total wait;
	// ours replace them. The URL logger goes first: it would otherwise warn
	// on slog's default handler while the base URL is set.
	c, err := gl.NewClient(opt.Token,
		gl.WithURLWarningLogger(slog.New(slog.DiscardHandler)),
		gl.WithBaseURL(opt.BaseURL),
		gl.WithHTTPClient(hc),
		gl.WithoutRetries(),
		gl.WithUserAgent("gitops-promote"),
	)
	if err != nil {
		return nil, fmt.Errorf("gitlab client for %s: %s", scrub.URL(opt.BaseURL), redact(err.Error(), opt.Token))
	}
	return &Client{gl: c, token: opt.Token, retry: retryPolicy{
		maxRetries: opt.MaxRetries, maxWait: opt.MaxWait, sleep: opt.Sleep,
	}}, nil
}

// homeOnly returns a copy of hc (nil: a default client) that sends the
// token to the configured GitLab only. Go keeps every header but
// Authorization and Cookie on a redirect to another host, so a 302 would
// hand PRIVATE-TOKEN to whoever it points at: a redirect that leaves the
// API's origin is refused (scrub.ErrOffOrigin, naming both hosts), and the
// transport refuses any request to another origin whatever asked for it.
func homeOnly(hc *http.Client, base *url.URL) *http.Client {
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	c := scrub.RefuseOffOrigin(hc)
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &homeTransport{home: base, next: next}
	return c
}

type homeTransport struct {
	home *url.URL
	next http.RoundTripper
}

func (t *homeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !scrub.SameOrigin(t.home, req.URL) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("%w: the gitlab api is %s://%s, not %s://%s", scrub.ErrOffOrigin,
			t.home.Scheme, t.home.Host, req.URL.Scheme, req.URL.Host)
	}
	return t.next.RoundTrip(req)
}

// projectID turns CI_PROJECT_ID into what client-go expects: a number
// stays a number, anything else is a path that client-go escapes.
func projectID(p string) any {
	if n, err := strconv.ParseInt(p, 10, 64); err == nil && strconv.FormatInt(n, 10) == p {
		return n
	}
	return p
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

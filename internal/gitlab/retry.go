package gitlab

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// retryPolicy bounds retries by count and by total time slept, so a CI job
// never hangs on a GitLab outage for longer than the budget.
type retryPolicy struct {
	maxRetries int
	maxWait    time.Duration
	sleep      func(ctx context.Context, d time.Duration) error
}

// Backoff shape when GitLab gives no hint: 0.5s, 1s, 2s, ... capped at 30s,
// each with up to half of it as jitter so concurrent pipelines spread out.
const (
	backoffBase = 500 * time.Millisecond
	backoffCap  = 30 * time.Second
)

// target names what a request is about, for error messages.
type target struct {
	project string
	mr      int64 // 0: not about one merge request
}

func (t target) String() string {
	if t.mr == 0 {
		return fmt.Sprintf("project %s", t.project)
	}
	return fmt.Sprintf("project %s merge request !%d", t.project, t.mr)
}

// apiCall runs one client-go call; ro carries the context into it.
type apiCall func(ro gl.RequestOptionFunc) (*gl.Response, error)

// call runs fn, retrying on 429, 5xx and, for idempotent requests, on
// network errors; every other failure returns at once as a classified error.
func (c *Client) call(ctx context.Context, op string, t target, idempotent bool, fn apiCall) error {
	var slept time.Duration
	for attempt := 0; ; attempt++ {
		resp, err := fn(gl.WithContext(ctx))
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !retryable(resp, err, idempotent) {
			return c.fail(op, t, resp, err)
		}
		if attempt >= c.retry.maxRetries {
			return fmt.Errorf("%s (gave up after %d attempts)", c.fail(op, t, resp, err), attempt+1)
		}
		d := backoff(attempt, header(resp), time.Now())
		if slept+d > c.retry.maxWait {
			return fmt.Errorf("%s (gave up after %d attempts: next wait %s would exceed the %s retry budget)",
				c.fail(op, t, resp, err), attempt+1, d.Round(time.Second), c.retry.maxWait)
		}
		if err := c.retry.sleep(ctx, d); err != nil {
			return fmt.Errorf("%s %s: %w", op, t, err)
		}
		slept += d
	}
}

func retryable(resp *gl.Response, err error, idempotent bool) bool {
	if errors.Is(err, scrub.ErrOffOrigin) {
		return false // a redirect elsewhere is configuration, not weather
	}
	if resp != nil {
		s := resp.StatusCode
		return s == http.StatusTooManyRequests || (s >= 500 && s != http.StatusNotImplemented)
	}
	// Without a response the request may or may not have reached GitLab:
	// only repeat it when doing so twice is harmless.
	var ne net.Error
	return idempotent && errors.As(err, &ne)
}

func header(resp *gl.Response) http.Header {
	if resp == nil || resp.Response == nil {
		return nil
	}
	return resp.Header
}

// backoff is the wait before retry attempt+1: what GitLab asked for via
// Retry-After (seconds or HTTP date) or RateLimit-Reset (unix time), else
// exponential. A little jitter is always added so that two pipelines told
// the same time do not collide again.
func backoff(attempt int, h http.Header, now time.Time) time.Duration {
	if d, ok := serverWait(h, now); ok {
		return d + jitter(min(d/10, time.Second))
	}
	d := backoffCap
	if attempt < 16 {
		d = min(backoffBase<<attempt, backoffCap)
	}
	return d/2 + jitter(d/2)
}

func serverWait(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	if v := h.Get("RateLimit-Reset"); v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil && s > 0 {
			return max(time.Unix(s, 0).Sub(now), 0), true
		}
	}
	return 0, false
}

func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

package git

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// netError is an error from the network whose text has been scrubbed of
// credentials. It deliberately does not unwrap to the original error,
// which could still hold a URL with a token (url.Error, for one); it
// unwraps only to the sentinels callers branch on.
type netError struct {
	msg       string
	sentinels []error
}

func (e *netError) Error() string   { return e.msg }
func (e *netError) Unwrap() []error { return e.sentinels }

// passThrough are the sentinels a netError keeps from the original error.
var passThrough = []error{
	transport.ErrAuthenticationRequired,
	transport.ErrAuthorizationFailed,
	transport.ErrRepositoryNotFound,
	transport.ErrEmptyRemoteRepository,
	context.Canceled,
	context.DeadlineExceeded,
}

func (r *Repo) netError(what string, err error, auth transport.AuthMethod) error {
	e := &netError{}
	if isRejection(err) {
		e.sentinels = append(e.sentinels, ErrRejected)
	}
	for _, s := range passThrough {
		if errors.Is(err, s) {
			e.sentinels = append(e.sentinels, s)
		}
	}
	e.msg = scrubText(oneLine(fmt.Sprintf("%s: %v", what, err)), r.secrets(auth))
	return e
}

// secrets collects what must not appear in messages: the password or
// token of auth, in every encoding it travels in (an HTTP 401 body may
// echo the Authorization header, base64 of "oauth2:TOKEN"), and the
// userinfo of every remote URL in the config, found without parsing so a
// password holding '/', '#' or a space is still found.
func (r *Repo) secrets(auth transport.AuthMethod) *scrub.Set {
	s := &scrub.Set{}
	switch a := auth.(type) {
	case *http.BasicAuth:
		s.AddCredential(a.Username, a.Password)
	case *http.TokenAuth:
		s.AddCredential("", a.Token)
	}
	if cfg, err := r.repo.Config(); err == nil {
		for _, rem := range cfg.Remotes {
			for _, raw := range rem.URLs {
				s.AddURL(raw)
			}
		}
	}
	return s
}

// oneLine joins a server's multi-line answer (go-git puts the body of a
// 401, 403 or 404 in its error) so that an error stays one line.
func oneLine(s string) string {
	var kept []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "; ")
}

// scrubText hides, in a message, the userinfo of any URL and every given
// secret in every encoding scrub knows.
func scrubText(msg string, secrets *scrub.Set) string { return secrets.Text(msg) }

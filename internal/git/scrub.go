package git

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
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
	e.msg = scrub(strings.TrimSpace(fmt.Sprintf("%s: %v", what, err)), r.secrets(auth))
	return e
}

// secrets lists strings that must not appear in messages: the password
// or token of auth and of any remote URL in the config.
func (r *Repo) secrets(auth transport.AuthMethod) []string {
	var out []string
	switch a := auth.(type) {
	case *http.BasicAuth:
		out = append(out, a.Password)
	case *http.TokenAuth:
		out = append(out, a.Token)
	}
	if cfg, err := r.repo.Config(); err == nil {
		for _, rem := range cfg.Remotes {
			for _, raw := range rem.URLs {
				if u, err := url.Parse(raw); err == nil && u.User != nil {
					p, _ := u.User.Password()
					out = append(out, p, u.User.Username())
				}
			}
		}
	}
	return out
}

var urlUserinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@"']+@`)

// minSecretLen keeps a short secret (or a user name such as "git") from
// turning every occurrence of a common word into "***".
const minSecretLen = 6

// scrub replaces the userinfo of any URL in msg, and every listed secret,
// with "***".
func scrub(msg string, secrets []string) string {
	msg = urlUserinfo.ReplaceAllString(msg, "${1}***@")
	for _, s := range secrets {
		if len(s) >= minSecretLen {
			msg = strings.ReplaceAll(msg, s, "***")
		}
		if esc := url.QueryEscape(s); esc != s && len(s) >= minSecretLen {
			msg = strings.ReplaceAll(msg, esc, "***")
		}
	}
	return msg
}

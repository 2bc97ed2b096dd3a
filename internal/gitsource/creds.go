package gitsource

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/gitops-promote/gitops-promote/internal/git"
)

// Credentials are where a fetch may find credentials, each for its own
// host only:
//   - Token (GIT_TOKEN or GITLAB_TOKEN) as user "oauth2", and else
//     JobToken (CI_JOB_TOKEN) as user "gitlab-ci-token", only for Host,
//     the host of the GitOps repository (.promote.yaml's repoURL);
//   - for any other host, the git ecosystem's own files in Home:
//     ~/.git-credentials (the store helper's "https://user:pass@host"
//     lines), then ~/.netrc ("machine host login user password pass");
//   - SSH URLs use the SSH agent, file:// nothing.
type Credentials struct {
	Host            string
	Token, JobToken string
	Home            string
}

// auth returns the auth method for repoURL and the secrets it holds,
// which errors must never show.
func (c Credentials) auth(repoURL string) (transport.AuthMethod, []string, error) {
	ep, err := transport.NewEndpoint(repoURL)
	if err != nil {
		return nil, nil, fmt.Errorf("repository URL %s: %w", Redact(repoURL), err)
	}
	switch ep.Protocol {
	case "http", "https":
	case "ssh":
		a, err := git.AuthFor(repoURL, "")
		return a, nil, err
	default:
		return nil, nil, nil
	}
	host := HostOf(repoURL)
	if c.Host != "" && strings.EqualFold(host, c.Host) {
		switch {
		case c.Token != "":
			return &http.BasicAuth{Username: "oauth2", Password: c.Token}, []string{c.Token}, nil
		case c.JobToken != "":
			return &http.BasicAuth{Username: "gitlab-ci-token", Password: c.JobToken}, []string{c.JobToken}, nil
		}
	}
	if user, pass, ok := c.fromGitCredentials(ep.Protocol, host); ok {
		return &http.BasicAuth{Username: user, Password: pass}, []string{pass, user}, nil
	}
	if user, pass, ok := c.fromNetrc(strings.ToLower(ep.Host)); ok {
		return &http.BasicAuth{Username: user, Password: pass}, []string{pass, user}, nil
	}
	return nil, nil, nil
}

// fromGitCredentials reads ~/.git-credentials: the first line of the
// same scheme and host wins, as git's store helper does.
func (c Credentials) fromGitCredentials(scheme, host string) (string, string, bool) {
	if c.Home == "" {
		return "", "", false
	}
	data, err := os.ReadFile(filepath.Join(c.Home, ".git-credentials"))
	if err != nil {
		return "", "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		u, err := url.Parse(strings.TrimSpace(sc.Text()))
		if err != nil || u.User == nil || u.Scheme != scheme || !strings.EqualFold(u.Host, host) {
			continue
		}
		pass, _ := u.User.Password()
		return u.User.Username(), pass, true
	}
	return "", "", false
}

// fromNetrc reads ~/.netrc for machine host (or the default entry).
func (c Credentials) fromNetrc(host string) (string, string, bool) {
	if c.Home == "" {
		return "", "", false
	}
	data, err := os.ReadFile(filepath.Join(c.Home, ".netrc"))
	if err != nil {
		return "", "", false
	}
	f := strings.Fields(string(data))
	var user, pass string
	match, found := false, false
	for i := 0; i < len(f); i++ {
		next := func() string {
			if i+1 < len(f) {
				i++
				return f[i]
			}
			return ""
		}
		switch f[i] {
		case "machine":
			if found {
				return user, pass, true
			}
			match = strings.EqualFold(next(), host)
			found = match
		case "default":
			if found {
				return user, pass, true
			}
			match, found = true, true
		case "login":
			if v := next(); match {
				user = v
			}
		case "password":
			if v := next(); match {
				pass = v
			}
		}
	}
	return user, pass, found && pass != ""
}

var urlUserinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@"']+@`)

// Redact hides any userinfo of a URL for messages.
func Redact(s string) string { return urlUserinfo.ReplaceAllString(s, "${1}***@") }

func stripUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil || u.Scheme == "" {
		return raw
	}
	u.User = nil
	return u.String()
}

// scrub removes every secret, raw or URL-escaped, from msg.
func scrub(msg string, secrets []string) string {
	msg = Redact(msg)
	for _, s := range secrets {
		if len(s) < 4 {
			continue
		}
		msg = strings.ReplaceAll(msg, s, "***")
		if esc := url.QueryEscape(s); esc != s {
			msg = strings.ReplaceAll(msg, esc, "***")
		}
	}
	return msg
}

// HostOf returns repoURL's host (with a non-default port), the host the
// GitOps repository's tokens belong to; "" when it has none.
func HostOf(repoURL string) string {
	ep, err := transport.NewEndpoint(repoURL)
	if err != nil || ep.Host == "" {
		return ""
	}
	host := strings.ToLower(ep.Host)
	if ep.Port != 0 && ep.Port != 80 && ep.Port != 443 && ep.Protocol != "ssh" {
		host = fmt.Sprintf("%s:%d", host, ep.Port)
	}
	return host
}

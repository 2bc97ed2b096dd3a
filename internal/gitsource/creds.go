package gitsource

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Credentials are where a fetch may find credentials, each for its own
// host only:
//   - Token (GIT_TOKEN or GITLAB_TOKEN) as user "oauth2", and else
//     JobToken (CI_JOB_TOKEN) as user "gitlab-ci-token", only for the host
//     of RepoURL, the GitOps repository (.promote.yaml's repoURL), and
//     only over HTTPS (over plain HTTP only when RepoURL itself is plain
//     HTTP): a source on http://<that host> gets none;
//   - for any other host, the git ecosystem's own files in Home:
//     ~/.git-credentials (the store helper's "https://user:pass@host"
//     lines: same scheme and host), then ~/.netrc ("machine host login
//     user password pass"; its "default" entry only for RepoURL's host,
//     under the tokens' scheme rule);
//   - SSH URLs use the SSH agent, file:// nothing.
//
// go-git drops them for the rest of a redirect chain once it leaves the
// origin of the first request.
type Credentials struct {
	RepoURL         string
	Token, JobToken string
	Home            string
}

// auth returns the auth method for repoURL and the secrets it holds,
// which errors must never show.
func (c Credentials) auth(repoURL string) (transport.AuthMethod, *scrub.Set, error) {
	secrets := &scrub.Set{}
	secrets.AddURL(repoURL)
	ep, err := transport.NewEndpoint(repoURL)
	if err != nil {
		return nil, secrets, fmt.Errorf("repository URL %s: %s", Redact(repoURL), secrets.Foreign(err.Error()))
	}
	switch ep.Protocol {
	case "http", "https":
	case "ssh":
		a, err := git.AuthFor(repoURL, "")
		return a, secrets, err
	default:
		return nil, secrets, nil
	}
	if c.tokenGoesTo(ep.Protocol, HostOf(repoURL)) {
		switch {
		case c.Token != "":
			secrets.AddCredential("oauth2", c.Token)
			return &http.BasicAuth{Username: "oauth2", Password: c.Token}, secrets, nil
		case c.JobToken != "":
			secrets.AddCredential("gitlab-ci-token", c.JobToken)
			return &http.BasicAuth{Username: "gitlab-ci-token", Password: c.JobToken}, secrets, nil
		}
	}
	if user, pass, ok := c.fromGitCredentials(ep.Protocol, HostOf(repoURL)); ok {
		secrets.AddCredential(user, pass)
		return &http.BasicAuth{Username: user, Password: pass}, secrets, nil
	}
	if user, pass, ok := c.fromNetrc(strings.ToLower(ep.Host), c.tokenGoesTo(ep.Protocol, HostOf(repoURL))); ok {
		secrets.AddCredential(user, pass)
		return &http.BasicAuth{Username: user, Password: pass}, secrets, nil
	}
	return nil, secrets, nil
}

// tokenGoesTo: the environment's tokens belong to the GitOps repository's
// host, over HTTPS, or over plain HTTP when that repository is itself
// served so.
func (c Credentials) tokenGoesTo(scheme, host string) bool {
	home := HostOf(c.RepoURL)
	if home == "" || !strings.EqualFold(host, home) {
		return false
	}
	return scheme == "https" || strings.HasPrefix(strings.ToLower(strings.TrimSpace(c.RepoURL)), scheme+"://")
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

// fromNetrc reads ~/.netrc for machine host, or its default entry when
// withDefault: only for the GitOps repository's own host, under the
// tokens' scheme rule. A default entry meant for one forge would
// otherwise go to any host a merge request names, over plain HTTP too.
func (c Credentials) fromNetrc(host string, withDefault bool) (string, string, bool) {
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
			match, found = withDefault, withDefault
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

// Redact hides any userinfo of a URL for messages: of the URL itself,
// found without parsing it, or of every URL in a text.
func Redact(s string) string {
	if strings.ContainsAny(s, " \t\n") {
		return scrub.URLs(s)
	}
	return scrub.URL(s)
}

// stripUserinfo drops a URL's user and password; one that does not parse
// (a password holding '/', '#' or a space) loses everything before the
// last '@' of its authority, as scrub.URL finds it.
func stripUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err == nil && u.Scheme != "" {
		if u.User == nil {
			return raw
		}
		u.User = nil
		return u.String()
	}
	if i := strings.Index(raw, "://"); i >= 0 {
		if at := strings.LastIndex(raw[i+3:], "@"); at >= 0 {
			return raw[:i+3] + raw[i+3+at+1:]
		}
	}
	return raw
}

// FileSecrets lists every credential of ~/.git-credentials and ~/.netrc
// in home, as user and secret pairs, for a caller that keeps them out of
// what it prints.
func FileSecrets(home string) [][2]string {
	if home == "" {
		return nil
	}
	var out [][2]string
	if data, err := os.ReadFile(filepath.Join(home, ".git-credentials")); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l == "" {
				continue
			}
			if u, err := url.Parse(l); err == nil && u.User != nil {
				pass, _ := u.User.Password()
				out = append(out, [2]string{u.User.Username(), pass})
			} else if i := strings.Index(l, "://"); i >= 0 {
				// unparsable: what scrub.URL would mask is the secret
				if at := strings.LastIndex(l[i+3:], "@"); at > 0 {
					user, pass, _ := strings.Cut(l[i+3:i+3+at], ":")
					out = append(out, [2]string{user, pass})
				}
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(home, ".netrc")); err == nil {
		f := strings.Fields(string(data))
		user := ""
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "machine", "default":
				user = ""
			case "login":
				user = f[i+1]
			case "password":
				out = append(out, [2]string{user, f[i+1]})
			}
		}
	}
	return out
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

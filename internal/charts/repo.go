package charts

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// repoRef is a parsed repository URL.
type repoRef struct {
	// display is the URL without credentials: the only form that appears
	// in messages and cache keys.
	display string
	oci     bool
	base    *url.URL // HTTP: the repository URL; OCI: scheme://host
	path    string   // OCI: repository path prefix, possibly ""
	auth    Auth     // credentials written into the URL, if any
}

// IsOCI reports whether repoURL names an OCI registry: "oci://host/path",
// or a bare "host[:port]/path" without a scheme, which is how Argo CD
// writes OCI Helm repositories.
func IsOCI(repoURL string) bool {
	if strings.HasPrefix(repoURL, "oci://") {
		return true
	}
	if strings.Contains(repoURL, "://") {
		return false
	}
	host, _, _ := strings.Cut(repoURL, "/")
	return looksLikeHost(host)
}

// looksLikeHost tells a registry host from the first segment of a relative
// path: a registry host has a dot, a port, or is localhost.
func looksLikeHost(h string) bool {
	if h == "" || strings.ContainsAny(h, " \t@?#\\") {
		return false
	}
	if h == "localhost" || strings.Contains(h, ".") {
		return true
	}
	_, port, err := net.SplitHostPort(h)
	return err == nil && port != ""
}

func parseRepo(raw string) (*repoRef, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, errors.New("empty chart repository url")
	}
	oci := IsOCI(s)
	if oci {
		s = "oci://" + strings.TrimPrefix(s, "oci://")
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		// url.Parse errors quote the input, which may hold a password.
		return nil, fmt.Errorf("invalid chart repository url %q", stripUserinfo(s))
	}
	r := &repoRef{oci: oci}
	if u.User != nil {
		pw, _ := u.User.Password()
		r.auth = Auth{Username: u.User.Username(), Password: pw}
		u.User = nil
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	if oci {
		r.path = strings.Trim(u.Path, "/")
		// HTTPS, as Helm; a loopback registry that answers in plain HTTP
		// is then spoken to in plain HTTP (docker's rule), see ociDo
		r.base = &url.URL{Scheme: "https", Host: u.Host}
		r.display = strings.TrimRight("oci://"+u.Host+"/"+r.path, "/")
		return r, nil
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("unsupported chart repository url %q: want http(s)://, oci:// or host/path", stripUserinfo(s))
	}
	u.Fragment = ""
	r.base = u
	r.display = u.String()
	return r, nil
}

// loopback: a host only this machine can serve, where a developer or a
// test runs a registry; the only place plain HTTP may carry credentials.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// stripUserinfo masks a URL's userinfo without parsing it: a password
// holding '/', '#' or a space is what makes parsing fail.
func stripUserinfo(s string) string { return scrub.URL(s) }

func checkChartName(r *repoRef, chart string) error {
	if chart == "" {
		return fmt.Errorf("empty chart name for %s", r.display)
	}
	if strings.ContainsAny(chart, " \t\r\n\\?#:@") || strings.HasPrefix(chart, "/") ||
		strings.HasSuffix(chart, "/") || hasDotDot(chart) {
		return fmt.Errorf("invalid chart name %q for %s", chart, r.display)
	}
	return nil
}

// checkVersion guards the places a version becomes a file name or a path.
func checkVersion(r *repoRef, chart, version string) error {
	if version == "" || strings.ContainsAny(version, " \t\r\n/\\?#:@") || hasDotDot(version) {
		return fmt.Errorf("invalid version %q for chart %s in %s", version, chart, r.display)
	}
	return nil
}

func hasDotDot(s string) bool {
	for _, seg := range strings.Split(s, "/") {
		if seg == ".." || seg == "." {
			return true
		}
	}
	return false
}

// sentinelError carries a full message and the sentinel it wraps, so the
// text reads naturally instead of ending in ": chart not found".
type sentinelError struct {
	msg string
	err error
}

func (e *sentinelError) Error() string { return e.msg }
func (e *sentinelError) Unwrap() error { return e.err }

func wrapf(sentinel error, format string, args ...any) error {
	return &sentinelError{msg: fmt.Sprintf(format, args...), err: sentinel}
}

// authError says that r refused access: whose credentials it rejected,
// or how to give it some.
func (c *Client) authError(r *repoRef, what string, status int, sent Auth) error {
	if sent.set() {
		return wrapf(ErrAuth, "%s answered %d for %s: the credentials from %s were rejected",
			r.display, status, what, sent.source())
	}
	return wrapf(ErrAuth, "%s answered %d for %s: %s", r.display, status, what, c.authHint(r))
}

func (c *Client) authHint(r *repoRef) string {
	switch {
	case c.Creds.unscopedPair(r):
		return "HELM_REPO_USERNAME/HELM_REPO_PASSWORD are set, but HELM_REPO_URL does not name this repository, so they were not sent: add it to HELM_REPO_URL"
	case r.oci:
		return "log in with 'helm registry login' or 'docker login', or set HELM_REPO_USERNAME/HELM_REPO_PASSWORD with HELM_REPO_URL naming it"
	}
	return "add it with 'helm repo add --username', or set HELM_REPO_USERNAME/HELM_REPO_PASSWORD with HELM_REPO_URL naming it"
}

// transportError drops the request URL that *url.Error repeats; the
// message already names the repository. A request that got no answer at
// all is an *UnreachableError (reach.go).
func transportError(r *repoRef, what string, err error) error {
	if u := reachError(r, err); u != nil {
		return u
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("fetch %s from %s: %w", what, r.display, err)
}

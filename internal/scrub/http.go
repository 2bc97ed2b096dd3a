package scrub

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ErrOffOrigin marks a redirect refused because it leaves the host the
// credentials were configured for.
var ErrOffOrigin = errors.New("redirect to another host refused")

// SameOrigin reports whether b is on a's scheme, host (ASCII
// case-insensitively) and port, default ports filled in. A subdomain, a
// plain-HTTP twin or another port is another origin.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

func port(u *url.URL) string {
	if p := strings.TrimLeft(u.Port(), "0"); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// safeHeaders are the request headers kept on a redirect off the origin.
// An allowlist, because credentials travel under names no list of
// sensitive headers can foresee (PRIVATE-TOKEN, JOB-TOKEN, X-Api-Key).
var safeHeaders = map[string]bool{
	"User-Agent": true, "Accept": true, "Accept-Encoding": true, "Accept-Language": true,
	"Content-Type": true, "Content-Length": true, "Range": true,
}

// StripOnRedirect returns a copy of c whose redirects keep credentials at
// home: once a redirect chain leaves the origin of its first request,
// every following request carries only safe headers and no URL userinfo,
// even if the chain comes back. Go's own rule keeps Authorization for a
// subdomain, another port and an https-to-http downgrade of the same
// host, and keeps any other header (PRIVATE-TOKEN) everywhere. A 307 or
// 308 off the origin would also resend the request's body (an OAuth2
// form with a refresh token), which no header rule can clean, so that
// redirect is refused with ErrOffOrigin. c's own CheckRedirect still runs
// first; nil c means http.DefaultClient.
func StripOnRedirect(c *http.Client) *http.Client {
	cp := clientCopy(c)
	next := cp.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := checkNext(next, req, via); err != nil {
			return err
		}
		if leftOrigin(req, via) {
			if hasBody(req) {
				return fmt.Errorf("%w: %s redirected to %s, which would receive the request's body", ErrOffOrigin, origin(via[0].URL), origin(req.URL))
			}
			strip(req)
		}
		return nil
	}
	return cp
}

// hasBody: Go resends the body on a 307 or 308 (303 and a POST's 301 or
// 302 become a GET without one).
func hasBody(req *http.Request) bool {
	return req.Body != nil && req.Body != http.NoBody
}

// RefuseOffOrigin returns a copy of c that refuses, with ErrOffOrigin, a
// redirect leaving the origin of its first request. Use it where a
// redirect elsewhere is a misconfiguration worth naming (an API base URL).
func RefuseOffOrigin(c *http.Client) *http.Client {
	cp := clientCopy(c)
	next := cp.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if leftOrigin(req, via) {
			return fmt.Errorf("%w: %s redirected to %s", ErrOffOrigin, origin(via[0].URL), origin(req.URL))
		}
		return checkNext(next, req, via)
	}
	return cp
}

func clientCopy(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cp := *c
	return &cp
}

func checkNext(next func(*http.Request, []*http.Request) error, req *http.Request, via []*http.Request) error {
	if next != nil {
		return next(req, via)
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

func leftOrigin(req *http.Request, via []*http.Request) bool {
	if len(via) == 0 {
		return false
	}
	home := via[0].URL
	if req.URL == nil || home == nil || !SameOrigin(home, req.URL) {
		return true
	}
	for _, v := range via[1:] {
		if v.URL == nil || !SameOrigin(home, v.URL) {
			return true
		}
	}
	return false
}

func strip(req *http.Request) {
	for k := range req.Header {
		if !safeHeaders[http.CanonicalHeaderKey(k)] {
			delete(req.Header, k)
		}
	}
	if req.URL != nil {
		req.URL.User = nil
	}
}

// origin is scheme://host[:port] of u, without userinfo, for messages.
func origin(u *url.URL) string {
	if u == nil {
		return "?"
	}
	return u.Scheme + "://" + u.Host
}

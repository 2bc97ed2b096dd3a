package charts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// ociDo sends one registry request, answering a 401 challenge once: a
// Bearer challenge is exchanged for a token at the realm, a Basic one is
// answered with the credentials. The Authorization that worked is kept
// per registry and repository so later requests skip the round trip.
func (c *Client) ociDo(ctx context.Context, r *repoRef, repo, method, rawURL, what string, accept ...string) (*http.Response, error) {
	hc, err := c.clientFor(r)
	if err != nil {
		return nil, err
	}
	key := r.base.Host + "/" + repo
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
		if err != nil {
			return nil, fmt.Errorf("fetch %s from %s: %w", what, r.display, err)
		}
		req.Header.Set("User-Agent", c.userAgent())
		if len(accept) > 0 {
			req.Header.Set("Accept", strings.Join(accept, ", "))
		}
		if authz := c.cachedAuthz(key); authz != "" {
			req.Header.Set("Authorization", authz)
		}
		resp, err := hc.Do(req)
		if err != nil {
			if next, ok := c.plainHTTP(r, req, err); ok {
				rawURL = next
				attempt--
				continue
			}
			return nil, transportError(r, what, err)
		}
		// Only the registry itself may ask for credentials: a 401 from a
		// host a redirect led to (a blob store) is not answered.
		if resp.StatusCode != http.StatusUnauthorized || attempt > 0 || !fromRegistry(resp, r) {
			return resp, nil
		}
		challenge := resp.Header.Get("WWW-Authenticate")
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		authz, err := c.answerChallenge(ctx, r, hc, repo, what, challenge)
		if err != nil {
			return nil, err
		}
		c.authMu.Lock()
		c.authz[key] = authz
		c.authMu.Unlock()
	}
}

// plainHTTP follows docker's rule for a loopback registry: HTTPS first,
// and plain HTTP when the server answers HTTPS in plain HTTP. It returns
// the request's URL over http, and remembers the host.
func (c *Client) plainHTTP(r *repoRef, req *http.Request, err error) (string, bool) {
	if !errors.Is(err, http.ErrSchemeMismatch) || req.URL.Scheme != "https" || !loopback(req.URL.Hostname()) ||
		!strings.EqualFold(req.URL.Host, r.base.Host) {
		return "", false
	}
	c.authMu.Lock()
	c.plain[r.base.Host] = true
	c.authMu.Unlock()
	r.base.Scheme = "http"
	u := *req.URL
	u.Scheme = "http"
	return u.String(), true
}

func fromRegistry(resp *http.Response, r *repoRef) bool {
	return resp.Request != nil && resp.Request.URL != nil && sameOrigin(resp.Request.URL, r.base)
}

func (c *Client) cachedAuthz(key string) string {
	c.authMu.Lock()
	defer c.authMu.Unlock()
	return c.authz[key]
}

func (c *Client) ociStatusError(ctx context.Context, r *repoRef, what string, resp *http.Response) error {
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		creds, err := c.ociAuth(ctx, r)
		if err != nil {
			return err
		}
		return c.authError(r, what, resp.StatusCode, creds)
	}
	return fmt.Errorf("fetch %s from %s: registry answered %s", what, r.display, resp.Status)
}

func (c *Client) answerChallenge(ctx context.Context, r *repoRef, hc *http.Client, repo, what, header string) (string, error) {
	creds, err := c.ociAuth(ctx, r)
	if err != nil {
		return "", err
	}
	scheme, params := parseChallenge(header)
	switch strings.ToLower(scheme) {
	case "bearer":
		if creds.RegistryToken != "" {
			return "Bearer " + creds.RegistryToken, nil
		}
		return c.bearerToken(ctx, r, hc, creds, repo, params)
	case "basic":
		if creds.Username == "" && creds.Password == "" {
			return "", c.authError(r, what, http.StatusUnauthorized, Auth{})
		}
		return basicAuthz(creds), nil
	}
	return "", c.authError(r, what, http.StatusUnauthorized, creds)
}

func basicAuthz(a Auth) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(a.Username+":"+a.Password))
}

// bearerToken runs the registry token flow. The realm is chosen by the
// registry's answer, not by the user, so credentials go there only when
// realmMayGetCredentials says so; otherwise the token is asked for
// anonymously, which public registries answer. An identity token is
// exchanged with an OAuth2 refresh_token POST, as docker and oras do;
// user and password with a GET in basic auth.
func (c *Client) bearerToken(ctx context.Context, r *repoRef, hc *http.Client, creds Auth, repo string, params map[string]string) (string, error) {
	realm, err := url.Parse(params["realm"])
	if err != nil || realm.Host == "" || (realm.Scheme != "https" && realm.Scheme != "http") {
		return "", fmt.Errorf("registry %s sent an unusable token realm", r.display)
	}
	scope := params["scope"]
	if scope == "" {
		scope = "repository:" + repo + ":pull"
	}
	mayCreds := creds.set() && realmMayGetCredentials(r.base, realm)
	req, sent, err := tokenRequest(ctx, realm, params["service"], scope, creds, mayCreds)
	if err != nil {
		return "", fmt.Errorf("registry %s token request: %w", r.display, err)
	}
	req.Header.Set("User-Agent", c.userAgent())
	resp, err := hc.Do(req)
	if err != nil {
		return "", transportError(r, "registry token", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		if creds.set() && !mayCreds {
			return "", wrapf(ErrAuth, "%s sends token requests to %s://%s, which is not its own host or domain: "+
				"the credentials were not sent there, and it refused a token without them", r.display, realm.Scheme, realm.Host)
		}
		return "", c.authError(r, "a registry token", resp.StatusCode, sent)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("registry %s token service answered %s", r.display, resp.Status)
	}
	var body struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil {
		return "", fmt.Errorf("registry %s token service sent invalid json", r.display)
	}
	tok := body.Token
	if tok == "" {
		tok = body.AccessToken
	}
	if tok == "" {
		return "", fmt.Errorf("registry %s token service sent no token", r.display)
	}
	return "Bearer " + tok, nil
}

// tokenRequest builds the token request; sent is the credentials it
// carries (none when withCreds is false).
func tokenRequest(ctx context.Context, realm *url.URL, service, scope string, creds Auth, withCreds bool) (*http.Request, Auth, error) {
	if withCreds && creds.IdentityToken != "" {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {creds.IdentityToken},
			"client_id": {"gitops-promote"}, "scope": {scope}}
		if service != "" {
			form.Set("service", service)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, realm.String(), strings.NewReader(form.Encode()))
		if err != nil {
			return nil, Auth{}, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return req, creds, nil
	}
	u := *realm
	q := u.Query()
	if service != "" {
		q.Set("service", service)
	}
	q.Set("scope", scope)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, Auth{}, err
	}
	if withCreds && (creds.Username != "" || creds.Password != "") {
		req.SetBasicAuth(creds.Username, creds.Password)
		return req, creds, nil
	}
	return req, Auth{}, nil
}

// realmMayGetCredentials decides whether the registry's credentials may
// go to the token realm its challenge names. Docker, oras and Helm send
// them to any realm; here the realm must be HTTPS (plain HTTP only for a
// loopback registry's loopback realm) and on the registry's own host name
// or under the same registrable domain (registry-1.docker.io and
// auth.docker.io, registry.gitlab.example.com and gitlab.example.com), by
// the public suffix list, so a registry under github.io cannot point at
// another github.io site. An IP address matches only itself.
func realmMayGetCredentials(registry, realm *url.URL) bool {
	if realm.Scheme != "https" && !(realm.Scheme == "http" && loopback(realm.Hostname()) && loopback(registry.Hostname())) {
		return false
	}
	a, b := strings.ToLower(registry.Hostname()), strings.ToLower(realm.Hostname())
	if a == b {
		return true
	}
	if net.ParseIP(a) != nil || net.ParseIP(b) != nil {
		return false
	}
	da, errA := publicsuffix.EffectiveTLDPlusOne(a)
	db, errB := publicsuffix.EffectiveTLDPlusOne(b)
	return errA == nil && errB == nil && da == db
}

// parseChallenge splits a WWW-Authenticate value into its scheme and
// parameters. Quoted values may hold commas (scope="repository:a:pull,push").
func parseChallenge(h string) (string, map[string]string) {
	h = strings.TrimSpace(h)
	scheme, rest, _ := strings.Cut(h, " ")
	params := map[string]string{}
	for rest = strings.TrimSpace(rest); rest != ""; {
		key, after, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		key = strings.ToLower(strings.TrimSpace(key))
		var val string
		val, rest = scanValue(strings.TrimSpace(after))
		params[key] = val
		rest = strings.TrimLeft(rest, ", ")
	}
	return scheme, params
}

// scanValue reads a token or a quoted string (with backslash escapes) and
// returns it and the remaining input.
func scanValue(s string) (string, string) {
	if !strings.HasPrefix(s, `"`) {
		v, rest, _ := strings.Cut(s, ",")
		return strings.TrimSpace(v), rest
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), ""
}

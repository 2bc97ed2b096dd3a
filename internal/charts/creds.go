package charts

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// Auth is one set of credentials for a repository or registry, and where
// it came from (for messages; never the secret itself).
type Auth struct {
	Username, Password string
	// IdentityToken is an OAuth2 refresh token (docker's "identitytoken",
	// or a credential helper's answer for the user "<token>"): a registry
	// token service exchanges it for an access token.
	IdentityToken string
	// RegistryToken is a bearer token sent to the registry as it is
	// (docker's "registrytoken").
	RegistryToken string
	// Source says where the credentials were found: "HELM_REPO_USERNAME/
	// HELM_REPO_PASSWORD", a file and entry, a credential helper.
	Source string
}

func (a Auth) set() bool {
	return a.Username != "" || a.Password != "" || a.IdentityToken != "" || a.RegistryToken != ""
}

func (a Auth) source() string {
	if a.Source != "" {
		return a.Source
	}
	return "the repository URL"
}

// Repository is one entry of Helm's repositories.yaml: the credentials and
// TLS settings of one chart repository, as `helm repo add` writes them.
type Repository struct {
	Name                  string `json:"name"`
	URL                   string `json:"url"`
	Username              string `json:"username"`
	Password              string `json:"password"`
	CertFile              string `json:"certFile"`
	KeyFile               string `json:"keyFile"`
	CAFile                string `json:"caFile"`
	InsecureSkipTLSVerify bool   `json:"insecure_skip_tls_verify"`
	PassCredentialsAll    bool   `json:"pass_credentials_all"`
}

// Credentials say, per repository, what a Client may send and how it
// verifies TLS. Each credential goes to the repository or registry it is
// configured for and nowhere else:
//
//   - Repositories (Helm's repositories.yaml) apply to the repository
//     whose URL equals theirs, as Helm matches them (a trailing slash
//     aside); an "oci://host[/path]" entry, which Helm itself does not
//     write, applies to the registry repositories at or below it;
//   - Registries (Helm's registry config, then docker's config.json) give
//     OCI registries their credentials by host, as `helm registry login`
//     and `docker login` store them, credential helpers included;
//   - Pair (HELM_REPO_USERNAME/HELM_REPO_PASSWORD) goes only to the
//     repositories PairURLs (HELM_REPO_URL) names, by origin and path
//     prefix: never to a repository only a GitOps file names, since a merge
//     request can add one pointing anywhere.
//
// The pair wins over the files, as Helm's --username/--password flags do;
// credentials written into a repository URL come last.
type Credentials struct {
	Repositories     []Repository
	RepositoryConfig string // the file Repositories came from, for messages
	Registries       []*RegistryConfig
	Pair             Auth
	PairURLs         []string
	// Remember, when set, is told every credential obtained while running
	// (a credential helper's answer), so that the caller can keep it out
	// of anything it prints.
	Remember func(user, secret string)
}

// repository returns the repositories.yaml entry of r, if any.
func (cr *Credentials) repository(r *repoRef) (Repository, bool) {
	if cr == nil {
		return Repository{}, false
	}
	for _, e := range cr.Repositories {
		if entryMatches(e.URL, r) {
			return e, true
		}
	}
	return Repository{}, false
}

// entryMatches: an HTTP entry names r exactly (Helm's urlutil.Equal: the
// paths cleaned, so a trailing slash does not count); an OCI entry names
// r's registry host and a path prefix of r's.
func entryMatches(entry string, r *repoRef) bool {
	if IsOCI(entry) != r.oci {
		return false
	}
	if r.oci {
		return coversOCI(entry, r)
	}
	u, err := url.Parse(strings.TrimSpace(entry))
	if err != nil {
		return false
	}
	u.User = nil
	return strings.EqualFold(u.Scheme, r.base.Scheme) && strings.EqualFold(u.Host, r.base.Host) &&
		cleanPath(u.Path) == cleanPath(r.base.Path)
}

func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	return path.Clean(p)
}

// pairFor returns the pair when PairURLs name r.
func (cr *Credentials) pairFor(r *repoRef) (Auth, bool) {
	if cr == nil || !cr.Pair.set() {
		return Auth{}, false
	}
	for _, p := range cr.PairURLs {
		if covers(p, r) {
			return cr.Pair, true
		}
	}
	return Auth{}, false
}

// covers reports whether the HELM_REPO_URL entry prefix names r: the same
// origin (scheme, host, port; for OCI the registry host) and a path at or
// below the prefix's, segment by segment.
func covers(prefix string, r *repoRef) bool {
	if IsOCI(prefix) != r.oci {
		return false
	}
	if r.oci {
		return coversOCI(prefix, r)
	}
	u, err := url.Parse(strings.TrimSpace(prefix))
	if err != nil || u.Host == "" {
		return false
	}
	return sameOrigin(u, r.base) && underPath(u.Path, r.base.Path)
}

func coversOCI(prefix string, r *repoRef) bool {
	p, err := parseRepo(prefix)
	if err != nil || !p.oci {
		return false
	}
	return strings.EqualFold(p.base.Host, r.base.Host) && underPath(p.path, r.path)
}

// underPath: p is prefix or below it ("/a" covers "/a" and "/a/b", not "/ab").
func underPath(prefix, p string) bool {
	prefix = strings.Trim(cleanPath(prefix), "/")
	p = strings.Trim(cleanPath(p), "/")
	return prefix == "" || p == prefix || strings.HasPrefix(p, prefix+"/")
}

// ParsePairURLs splits HELM_REPO_URL (URLs separated by commas or white
// space) and checks each is a repository URL: http(s)://host[/path], or
// oci://host[/path] (or host/path) for a registry.
func ParsePairURLs(s string) ([]string, error) {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		r, err := parseRepo(f)
		if err != nil {
			return nil, fmt.Errorf("HELM_REPO_URL: %w", err)
		}
		if r.auth.set() {
			return nil, fmt.Errorf("HELM_REPO_URL: %s holds credentials: put them in HELM_REPO_USERNAME/HELM_REPO_PASSWORD", r.display)
		}
		out = append(out, f)
	}
	return out, nil
}

// auth chooses what r's own host gets: the pair when HELM_REPO_URL names
// r, else r's repositories.yaml entry, else (OCI) the registry configs
// by host, else credentials written into r's URL. Registry lookups may run
// a credential helper, so they happen only when a registry asks.
func (cr *Credentials) fileAuth(r *repoRef) Auth {
	if a, ok := cr.pairFor(r); ok {
		return a
	}
	if e, ok := cr.repository(r); ok && (e.Username != "" || e.Password != "") {
		src := fmt.Sprintf("%s (repository %q)", cr.RepositoryConfig, e.Name)
		return Auth{Username: e.Username, Password: e.Password, Source: src}
	}
	return Auth{}
}

// unscopedPair: the pair is set but HELM_REPO_URL does not name r.
func (cr *Credentials) unscopedPair(r *repoRef) bool {
	if cr == nil || !cr.Pair.set() {
		return false
	}
	_, ok := cr.pairFor(r)
	return !ok
}

// Secrets lists every credential the files and the environment hold
// (credential helpers are not asked), as user and secret pairs, for a
// caller that keeps them out of its output.
func (cr *Credentials) Secrets() [][2]string {
	if cr == nil {
		return nil
	}
	var out [][2]string
	add := func(a Auth) {
		for _, s := range []string{a.Password, a.IdentityToken, a.RegistryToken} {
			if s != "" {
				out = append(out, [2]string{a.Username, s})
			}
		}
	}
	add(cr.Pair)
	for _, e := range cr.Repositories {
		add(Auth{Username: e.Username, Password: e.Password})
	}
	for _, rc := range cr.Registries {
		for _, a := range rc.Auths {
			if a, err := a.decode(); err == nil {
				add(a)
			}
		}
	}
	return out
}

// registryAuth is a memoised registry lookup, its error included: a
// failing credential helper is not asked again for every chart.
type registryAuth struct {
	auth Auth
	err  error
}

// lookupRegistry asks the registry configs in order for host's
// credentials; the first that has some wins, as Helm falls back from its
// own registry config to docker's.
func (cr *Credentials) lookupRegistry(ctx context.Context, host string) (Auth, error) {
	for _, rc := range cr.Registries {
		a, found, err := rc.lookup(ctx, host)
		if err != nil {
			return Auth{}, err
		}
		if found {
			if cr.Remember != nil && strings.HasPrefix(a.Source, "credential helper") {
				if a.Password != "" {
					cr.Remember(a.Username, a.Password)
				}
				if a.IdentityToken != "" {
					cr.Remember("", a.IdentityToken)
				}
			}
			return a, nil
		}
	}
	return Auth{}, nil
}

// httpAuth returns what an HTTP repository's own host gets, and whether
// its repositories.yaml entry lets those credentials follow downloads to
// other hosts (pass_credentials_all, for the entry's own credentials).
func (c *Client) httpAuth(r *repoRef) (Auth, bool) {
	if a, ok := c.Creds.pairFor(r); ok {
		return a, false
	}
	if a := c.Creds.fileAuth(r); a.set() {
		e, _ := c.Creds.repository(r)
		return a, e.PassCredentialsAll
	}
	return r.auth, false
}

// ociAuth returns what a registry gets when it asks: the pair or the
// repositories.yaml entry, else the registry configs (which may run a
// credential helper, once per host), else credentials in the URL.
func (c *Client) ociAuth(ctx context.Context, r *repoRef) (Auth, error) {
	if a := c.Creds.fileAuth(r); a.set() {
		return a, nil
	}
	if c.Creds != nil && len(c.Creds.Registries) > 0 {
		res, err := c.regAuth.do(ctx, r.base.Host, true, func(ctx context.Context) (registryAuth, error) {
			a, err := c.Creds.lookupRegistry(ctx, r.base.Host)
			if err != nil && isContextErr(err) {
				return registryAuth{}, err
			}
			return registryAuth{a, err}, nil
		})
		if err != nil {
			return Auth{}, err
		}
		if res.err != nil {
			return Auth{}, fmt.Errorf("credentials for %s: %w", r.display, res.err)
		}
		if res.auth.set() {
			return res.auth, nil
		}
	}
	return r.auth, nil
}

// clientFor returns the HTTP client of r's TLS settings.
func (c *Client) clientFor(r *repoRef) (*http.Client, error) {
	e, ok := c.Creds.repository(r)
	if !ok {
		return c.httpc, nil
	}
	hc, err := c.httpClient(e.tls())
	if err != nil {
		return nil, fmt.Errorf("%s: repository %q in %s: %w", r.display, e.Name, c.Creds.RepositoryConfig, err)
	}
	return hc, nil
}

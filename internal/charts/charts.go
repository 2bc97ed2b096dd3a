// Package charts looks up and downloads packaged Helm charts from chart
// repositories, both classic HTTP repositories (index.yaml) and OCI
// registries, and keeps a disk cache of the downloaded archives.
//
// It speaks the repository protocols itself rather than using Helm's SDK:
// the promote binary imports this package and must start in a few
// milliseconds, while linking Helm and the Kubernetes client packages costs
// about 60 ms of package initialisation before main runs.
package charts

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Sentinels callers branch on; every error this package returns for these
// conditions wraps one of them.
var (
	// ErrChartNotFound: the repository has no chart of that name.
	ErrChartNotFound = errors.New("chart not found")
	// ErrVersionNotFound: the chart exists but not at that version. The
	// concrete error is a *VersionNotFoundError listing the nearest versions.
	ErrVersionNotFound = errors.New("chart version not found")
	// ErrAuth: the repository answered 401 or 403.
	ErrAuth = errors.New("chart repository refused access")
	// ErrDigestMismatch: downloaded bytes do not match the published digest.
	ErrDigestMismatch = errors.New("chart digest mismatch")
)

// Client looks charts up and fetches them. The zero value is ready to use;
// a Client is safe for concurrent use and must not be copied after first
// use, because it memoises indexes, tokens and downloads.
type Client struct {
	HTTP *http.Client // nil: a client with sane timeouts
	// Creds chooses, per repository, the credentials and TLS settings
	// (see Credentials). nil: only credentials written into a
	// repository's URL, and the system's TLS roots.
	Creds *Credentials
	// CacheDir holds fetched .tgz files and nothing else; "" disables the
	// disk cache.
	CacheDir string
	// LocalDir, when set, makes the Client offline: charts are read from
	// <LocalDir>/<chart>-<version>.tgz and the network is never touched.
	LocalDir  string
	UserAgent string // "" -> "gitops-promote"

	initOnce sync.Once
	httpc    *http.Client
	indexes  flight[*index]
	archives flight[[]byte]
	// registry credentials by host: a credential helper runs once
	regAuth flight[registryAuth]

	authMu sync.Mutex
	authz  map[string]string // registry host + repository -> Authorization
	plain  map[string]bool   // loopback registry hosts that speak plain HTTP

	tlsMu      sync.Mutex
	tlsClients map[tlsSettings]*http.Client
}

func (c *Client) init() {
	c.initOnce.Do(func() {
		hc := c.HTTP
		if hc == nil {
			hc = defaultHTTPClient()
		}
		// Go keeps Authorization on a redirect to the same host name on
		// another port, to a subdomain, and from https down to http: a
		// redirect that leaves the origin carries no credential here.
		c.httpc = scrub.StripOnRedirect(hc)
		c.authz = map[string]string{}
		c.plain = map[string]bool{}
		c.tlsClients = map[tlsSettings]*http.Client{}
	})
}

func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = time.Minute
	// The overall cap is generous: big public index.yaml files are tens of
	// megabytes. Callers bound individual calls with their context.
	return &http.Client{Transport: t, Timeout: 5 * time.Minute}
}

func (c *Client) userAgent() string {
	if c.UserAgent != "" {
		return c.UserAgent
	}
	return "gitops-promote"
}

// Versions lists the chart's versions in the repository, newest first
// (semantic-version order; tags that are not versions come last). For an
// HTTP repository the index is fetched at most once per Client; for an OCI
// registry the tags are listed, following pagination.
func (c *Client) Versions(ctx context.Context, repoURL, chart string) ([]string, error) {
	r, err := c.repo(repoURL)
	if err != nil {
		return nil, err
	}
	if err := checkChartName(r, chart); err != nil {
		return nil, err
	}
	switch {
	case c.LocalDir != "":
		return c.localVersions(r, chart)
	case r.oci:
		return c.ociVersions(ctx, r, chart)
	default:
		return c.httpVersions(ctx, r, chart)
	}
}

// HasVersion returns nil when chart@version exists. Otherwise the error
// wraps ErrChartNotFound, ErrVersionNotFound (a *VersionNotFoundError) or
// ErrAuth. Versions match exactly, or as equal semantic versions.
func (c *Client) HasVersion(ctx context.Context, repoURL, chart, version string) error {
	r, err := c.repo(repoURL)
	if err != nil {
		return err
	}
	if err := checkChartName(r, chart); err != nil {
		return err
	}
	if err := checkVersion(r, chart, version); err != nil {
		return err
	}
	switch {
	case c.LocalDir != "":
		_, err = c.localPath(r, chart, version)
	case r.oci:
		err = c.ociHasVersion(ctx, r, chart, version)
	default:
		_, err = c.httpEntry(ctx, r, chart, version)
	}
	return err
}

// Fetch returns the packaged chart (.tgz bytes) for chart@version. Results
// are kept in memory for the Client's lifetime and on disk under CacheDir;
// concurrent calls for the same chart@version download once. The returned
// slice is the caller's own.
func (c *Client) Fetch(ctx context.Context, repoURL, chart, version string) ([]byte, error) {
	r, err := c.repo(repoURL)
	if err != nil {
		return nil, err
	}
	if err := checkChartName(r, chart); err != nil {
		return nil, err
	}
	if err := checkVersion(r, chart, version); err != nil {
		return nil, err
	}
	key := cacheKey(r, chart, version)
	data, err := c.archives.do(ctx, key, true, func(ctx context.Context) ([]byte, error) {
		return c.fetchUncached(ctx, r, chart, version, key)
	})
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), data...), nil
}

func (c *Client) fetchUncached(ctx context.Context, r *repoRef, chart, version, key string) ([]byte, error) {
	if c.LocalDir != "" {
		return c.readLocal(r, chart, version)
	}
	if data, ok := c.readCache(key, chart, version); ok {
		return data, nil
	}
	var data []byte
	var err error
	if r.oci {
		data, err = c.ociFetch(ctx, r, chart, version)
	} else {
		data, err = c.httpFetch(ctx, r, chart, version)
	}
	if err != nil {
		return nil, err
	}
	// The disk cache is an optimisation: a full disk or read-only cache
	// directory must not fail a render that already has the chart.
	_ = c.writeCache(key, chart, version, data)
	return data, nil
}

// repo parses repoURL for a look-up: a loopback registry already seen to
// speak plain HTTP is addressed over HTTP at once.
func (c *Client) repo(repoURL string) (*repoRef, error) {
	r, err := parseRepo(repoURL)
	if err != nil {
		return nil, err
	}
	c.init()
	if r.oci {
		c.authMu.Lock()
		if c.plain[r.base.Host] {
			r.base.Scheme = "http"
		}
		c.authMu.Unlock()
	}
	return r, nil
}

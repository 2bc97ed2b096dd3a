package charts

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Size caps guard memory against a hostile or broken server. Large public
// indexes are tens of megabytes; Helm refuses charts over 100 MiB
// uncompressed, so a bigger archive is never a real chart.
const (
	maxIndexBytes    = 256 << 20
	maxChartBytes    = 100 << 20
	maxManifestBytes = 4 << 20
	maxTagsBytes     = 16 << 20
)

func (r *repoRef) indexURL() *url.URL {
	u := *r.base
	u.Path += "/index.yaml"
	if u.RawPath != "" {
		u.RawPath += "/index.yaml"
	}
	return &u
}

// chartURL resolves an index.yaml url the way Helm does: relative to the
// repository URL taken as a directory.
func (r *repoRef) chartURL(ref string) (*url.URL, error) {
	rel, err := url.Parse(ref)
	if err != nil {
		return nil, fmt.Errorf("invalid chart url %q in %s index", stripUserinfo(ref), r.display)
	}
	base := *r.base
	base.Path += "/"
	if base.RawPath != "" {
		base.RawPath += "/"
	}
	u := base.ResolveReference(rel)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("unsupported chart url scheme %q in %s index", u.Scheme, r.display)
	}
	return u, nil
}

// httpGet downloads u, sending credentials only to the repository's own
// origin (unless its repositories.yaml entry says pass_credentials_all):
// an index may point downloads at a CDN or another party's server, which
// must not learn the password.
func (c *Client) httpGet(ctx context.Context, r *repoRef, u *url.URL, what string, limit int64) ([]byte, error) {
	u = stripURLCreds(u)
	hc, err := c.clientFor(r)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s from %s: %w", what, r.display, err)
	}
	req.Header.Set("User-Agent", c.userAgent())
	creds, passAll := c.httpAuth(r)
	var sent Auth
	if creds.Username != "" || creds.Password != "" {
		if passAll || sameOrigin(u, r.base) {
			req.SetBasicAuth(creds.Username, creds.Password)
			sent = creds
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, transportError(r, what, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, c.authError(r, what, resp.StatusCode, sent)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("fetch %s from %s: %s answered %s", what, r.display, u.Host, resp.Status)
	}
	return readCapped(resp.Body, limit, what, r)
}

// sameOrigin tells whether u is on the repository's or registry's own
// scheme, host and port: the only place its credentials or token may go.
// Same host over plain HTTP does not count.
func sameOrigin(a, b *url.URL) bool { return scrub.SameOrigin(a, b) }

func stripURLCreds(u *url.URL) *url.URL {
	if u.User == nil {
		return u
	}
	cp := *u
	cp.User = nil
	return &cp
}

func readCapped(body io.Reader, limit int64, what string, r *repoRef) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, transportError(r, what, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("fetch %s from %s: larger than %d MiB", what, r.display, limit>>20)
	}
	return data, nil
}

func (c *Client) httpFetch(ctx context.Context, r *repoRef, chart, version string) ([]byte, error) {
	e, err := c.httpEntry(ctx, r, chart, version)
	if err != nil {
		return nil, err
	}
	if len(e.URLs) == 0 {
		return nil, fmt.Errorf("chart %s version %s in %s has no download url", chart, version, r.display)
	}
	u, err := r.chartURL(e.URLs[0])
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("chart %s version %s", chart, version)
	data, err := c.httpGet(ctx, r, u, what, maxChartBytes)
	if err != nil {
		return nil, err
	}
	if e.Digest != "" {
		if err := verifyDigest(data, e.Digest, r, what); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// verifyDigest accepts index.yaml's bare hex sha256 as well as the
// "algorithm:hex" form OCI uses.
func verifyDigest(data []byte, digest string, r *repoRef, what string) error {
	algo, want, ok := strings.Cut(digest, ":")
	if !ok {
		algo, want = "sha256", digest
	}
	var h hash.Hash
	switch algo {
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	default:
		return fmt.Errorf("%s from %s: unsupported digest algorithm %q", what, r.display, algo)
	}
	h.Write(data)
	got := hex.EncodeToString(h.Sum(nil))
	if !strings.EqualFold(got, want) {
		return wrapf(ErrDigestMismatch, "%s from %s: digest mismatch: published %s:%s, downloaded %s:%s",
			what, r.display, algo, oneLine(want), algo, got)
	}
	return nil
}

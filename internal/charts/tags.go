package charts

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// maxTagPages bounds pagination against a registry whose Link headers
// never end.
const maxTagPages = 1000

// ociTags lists a repository's tags, following the Link rel="next"
// headers of the distribution spec's paginated tag listing.
func (c *Client) ociTags(ctx context.Context, r *repoRef, chart string) ([]string, error) {
	repo := r.repository(chart)
	what := "tags of chart " + chart
	next := r.v2URL(repo, "tags/list")
	seen := map[string]bool{}
	var tags []string
	for next != "" {
		if seen[next] || len(seen) >= maxTagPages {
			return nil, fmt.Errorf("list %s in %s: tag pagination does not end", what, r.display)
		}
		seen[next] = true
		page, link, err := c.ociTagPage(ctx, r, repo, chart, next, what)
		if err != nil {
			return nil, err
		}
		tags = append(tags, page...)
		next, err = nextPage(r, next, link, what)
		if err != nil {
			return nil, err
		}
	}
	return tags, nil
}

func (c *Client) ociTagPage(ctx context.Context, r *repoRef, repo, chart, pageURL, what string) ([]string, string, error) {
	resp, err := c.ociDo(ctx, r, repo, http.MethodGet, pageURL, what, "application/json")
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, "", chartNotFound(r, chart, "")
	default:
		return nil, "", c.ociStatusError(ctx, r, what, resp)
	}
	data, err := readCapped(resp.Body, maxTagsBytes, what, r)
	if err != nil {
		return nil, "", err
	}
	var body struct {
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, "", fmt.Errorf("list %s in %s: invalid tag list: %v", what, r.display, err)
	}
	return body.Tags, resp.Header.Get("Link"), nil
}

// nextPage resolves the rel="next" target of a Link header against the
// page it came with. It refuses links to another origin, which would
// receive the registry token.
func nextPage(r *repoRef, current, link, what string) (string, error) {
	target := linkNext(link)
	if target == "" {
		return "", nil
	}
	base, err := url.Parse(current)
	if err != nil {
		return "", fmt.Errorf("list %s in %s: %w", what, r.display, err)
	}
	ref, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("list %s in %s: invalid pagination link", what, r.display)
	}
	u := base.ResolveReference(ref)
	if !sameOrigin(u, base) {
		return "", fmt.Errorf("list %s in %s: pagination link leaves the registry (%s)", what, r.display, u.Host)
	}
	return u.String(), nil
}

// linkNext extracts the URL of the rel="next" link from a Link header
// such as `</v2/x/tags/list?n=2&last=b>; rel="next"`.
func linkNext(h string) string {
	for h != "" {
		start := strings.IndexByte(h, '<')
		if start < 0 {
			return ""
		}
		end := strings.IndexByte(h[start:], '>')
		if end < 0 {
			return ""
		}
		target := h[start+1 : start+end]
		h = h[start+end+1:]
		params := h
		if i := strings.IndexByte(h, '<'); i >= 0 {
			params = h[:i]
		}
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "rel") {
				for _, rel := range strings.Fields(strings.Trim(v, "\", \t")) {
					if strings.EqualFold(rel, "next") {
						return target
					}
				}
			}
		}
	}
	return ""
}

package render

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/gitops-promote/gitops-promote/internal/gitsource"
)

// maxRemoteValues bounds a downloaded value file.
const maxRemoteValues = 16 << 20

// fetchURL downloads a value file given as an http(s) URL, as helm's
// getter does for `--values URL` (no credentials): a status other than
// 2xx fails the render.
func fetchURL(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", gitsource.Redact(u), err)
	}
	req.Header.Set("User-Agent", "Helm/3")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %v", gitsource.Redact(u), gitsource.Redact(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("failed to fetch %s : %s", gitsource.Redact(u), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRemoteValues+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", gitsource.Redact(u), err)
	}
	if len(data) > maxRemoteValues {
		return nil, fmt.Errorf("fetching %s: larger than %d bytes", gitsource.Redact(u), maxRemoteValues)
	}
	return data, nil
}

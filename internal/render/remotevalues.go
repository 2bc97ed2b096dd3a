package render

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Bounds on a downloaded value file or kustomize resource: its size, the
// wait for the server's answer, and the whole download.
const (
	maxRemoteValues     = 16 << 20
	remoteHeaderTimeout = 30 * time.Second
	remoteTimeout       = 2 * time.Minute
)

// remoteClient downloads value files and kustomize resources. A redirect
// that leaves the URL's origin carries no credential (userinfo written in
// the URL goes to its own host only), and a server that stops answering
// cannot hang the render.
var remoteClient = newRemoteClient(remoteHeaderTimeout, remoteTimeout)

func newRemoteClient(header, total time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = header
	return scrub.StripOnRedirect(&http.Client{Transport: t, Timeout: total})
}

// fetchURL downloads a value file given as an http(s) URL, as helm's
// getter does for `--values URL` (no credentials but the URL's own): a
// status other than 2xx fails the render. Errors never show the URL's
// userinfo, in any encoding, even when the server echoes it.
func fetchURL(ctx context.Context, u string) ([]byte, error) {
	var s scrub.Set
	s.AddURL(u)
	shown := scrub.URL(u)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %s", shown, s.Foreign(err.Error()))
	}
	req.Header.Set("User-Agent", "Helm/3")
	resp, err := remoteClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %s", shown, s.Foreign(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("failed to fetch %s : %s", shown, s.Foreign(resp.Status))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRemoteValues+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %s", shown, s.Foreign(err.Error()))
	}
	if len(data) > maxRemoteValues {
		return nil, fmt.Errorf("fetching %s: larger than %d bytes", shown, maxRemoteValues)
	}
	return data, nil
}

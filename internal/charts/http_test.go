package charts

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

var podinfoVersions = []string{"6.0.0", "6.1.0", "6.2.0", "6.2.1", "6.3.0", "7.0.0"}

// httpFixture is a real chart repository at <repo>/stable plus a second
// server standing in for a CDN that index.yaml points some downloads at.
type httpFixture struct {
	repoURL            string
	repoHits, cdnHits  *counter
	charts             map[string][]byte // "name@version" -> archive
	indexPath, cdnPath string
}

func newHTTPFixture(t *testing.T, user, pass string) *httpFixture {
	f := &httpFixture{repoHits: newCounter(), cdnHits: newCounter(), charts: map[string][]byte{}}
	repoFiles, cdnFiles := map[string][]byte{}, map[string][]byte{}
	cdn := httptest.NewServer(f.cdnHits.wrap(files(cdnFiles, "", "")))
	t.Cleanup(cdn.Close)
	srv := httptest.NewServer(f.repoHits.wrap(files(repoFiles, user, pass)))
	t.Cleanup(srv.Close)
	f.repoURL = srv.URL + "/stable"
	f.indexPath = "/stable/index.yaml"
	f.cdnPath = "/dl/nginx-1.0.0.tgz"

	entries := map[string][]map[string]any{}
	add := func(name, version, url, digest string, body []byte) {
		f.charts[name+"@"+version] = body
		entries[name] = append(entries[name], map[string]any{
			"apiVersion": "v2", "name": name, "version": version,
			"urls": []string{url}, "digest": digest, "created": "2025-01-02T03:04:05Z",
		})
	}
	for _, v := range podinfoVersions {
		body := makeChart(t, "podinfo", v)
		repoFiles["/stable/charts/podinfo-"+v+".tgz"] = body
		add("podinfo", v, "charts/podinfo-"+v+".tgz", sha256Hex(body), body)
	}
	nginx := makeChart(t, "nginx", "1.0.0")
	cdnFiles[f.cdnPath] = nginx
	add("nginx", "1.0.0", cdn.URL+f.cdnPath, sha256Hex(nginx), nginx)

	plain := makeChart(t, "plain", "0.2.0")
	repoFiles["/pkg/plain-0.2.0.tgz"] = plain
	add("plain", "0.2.0", "/pkg/plain-0.2.0.tgz", "", plain)

	broken := makeChart(t, "broken", "0.1.0")
	repoFiles["/stable/broken-0.1.0.tgz"] = broken
	add("broken", "0.1.0", "broken-0.1.0.tgz", sha256Hex([]byte("something else")), broken)

	index, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "entries": entries, "generated": "2025-01-02T03:04:05Z"})
	if err != nil {
		t.Fatal(err)
	}
	repoFiles[f.indexPath] = index
	return f
}

func TestHTTPVersionsAndHasVersion(t *testing.T) {
	f := newHTTPFixture(t, "", "")
	c := &Client{}
	ctx := context.Background()

	got, err := c.Versions(ctx, f.repoURL, "podinfo")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"7.0.0", "6.3.0", "6.2.1", "6.2.0", "6.1.0", "6.0.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Versions (-want +got):\n%s", diff)
	}

	tests := []struct {
		name, chart, version string
		wantErr              error
		wantNearest          []string
	}{
		{name: "exists", chart: "podinfo", version: "6.2.0"},
		{name: "same semver with v prefix", chart: "podinfo", version: "v6.2.1"},
		{name: "absolute url chart", chart: "nginx", version: "1.0.0"},
		{name: "missing version lists nearest", chart: "podinfo", version: "6.2.5", wantErr: ErrVersionNotFound,
			wantNearest: []string{"7.0.0", "6.3.0", "6.2.1", "6.2.0", "6.1.0"}},
		{name: "missing old version", chart: "podinfo", version: "1.0.0", wantErr: ErrVersionNotFound,
			wantNearest: []string{"6.3.0", "6.2.1", "6.2.0", "6.1.0", "6.0.0"}},
		{name: "missing chart", chart: "nope", version: "1.0.0", wantErr: ErrChartNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.HasVersion(ctx, f.repoURL, tt.chart, tt.version)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("HasVersion = %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				return
			}
			for _, s := range []string{tt.chart, tt.version, f.repoURL} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			var vnf *VersionNotFoundError
			if errors.As(err, &vnf) {
				if diff := cmp.Diff(tt.wantNearest, vnf.Nearest); diff != "" {
					t.Errorf("Nearest (-want +got):\n%s", diff)
				}
				if !strings.Contains(err.Error(), strings.Join(tt.wantNearest, ", ")) {
					t.Errorf("error %q does not list the nearest versions", err)
				}
			}
		})
	}
	if n := f.repoHits.get(f.indexPath); n != 1 {
		t.Errorf("index.yaml fetched %d times, want 1", n)
	}
}

func TestHTTPIndexFetchedOnce(t *testing.T) {
	f := newHTTPFixture(t, "", "")
	c := &Client{}
	ctx := context.Background()
	errs := make(chan error, 40)
	for i := range 40 {
		go func() {
			v := podinfoVersions[i%len(podinfoVersions)]
			errs <- c.HasVersion(ctx, f.repoURL+"/", "podinfo", v) // trailing slash: same repo
		}()
	}
	for range 40 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if _, err := c.Versions(ctx, f.repoURL, "nginx"); err != nil {
		t.Fatal(err)
	}
	if n := f.repoHits.total(); n != 1 {
		t.Errorf("%d requests for 41 look-ups, want 1 (index.yaml once)", n)
	}
}

func TestHTTPFetch(t *testing.T) {
	f := newHTTPFixture(t, "", "")
	tests := []struct {
		name, chart, version string
		wantErr              error
	}{
		{name: "relative url", chart: "podinfo", version: "6.3.0"},
		{name: "absolute url on another host", chart: "nginx", version: "1.0.0"},
		{name: "root-relative url without digest", chart: "plain", version: "0.2.0"},
		{name: "wrong digest", chart: "broken", version: "0.1.0", wantErr: ErrDigestMismatch},
		{name: "missing version", chart: "podinfo", version: "9.9.9", wantErr: ErrVersionNotFound},
		{name: "missing chart", chart: "nope", version: "1.0.0", wantErr: ErrChartNotFound},
	}
	c := &Client{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Fetch(context.Background(), f.repoURL, tt.chart, tt.version)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Fetch error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(got, f.charts[tt.chart+"@"+tt.version]) {
				t.Errorf("Fetch returned %d bytes that differ from the published archive", len(got))
			}
			if meta := chartMeta(t, got); meta != tt.chart+"@"+tt.version {
				t.Errorf("archive holds %s", meta)
			}
		})
	}
}

func TestHTTPRepoErrors(t *testing.T) {
	f := newHTTPFixture(t, "", "")
	down := httptest.NewServer(nil)
	down.Close()
	tests := []struct {
		name, repoURL, wantMsg string
	}{
		{"no index", strings.TrimSuffix(f.repoURL, "/stable") + "/elsewhere", "answered 404"},
		{"server down", down.URL + "/charts", "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (&Client{}).HasVersion(context.Background(), tt.repoURL, "podinfo", "6.0.0")
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) || !strings.Contains(err.Error(), tt.repoURL) {
				t.Fatalf("HasVersion = %v, want an error naming %s with %q", err, tt.repoURL, tt.wantMsg)
			}
			for _, sentinel := range []error{ErrChartNotFound, ErrVersionNotFound, ErrAuth} {
				if errors.Is(err, sentinel) {
					t.Errorf("unreachable repo reported as %v", sentinel)
				}
			}
		})
	}
}

// Prefetch loads the index that later look-ups answer from; it ignores
// OCI and malformed URLs rather than failing.
func TestHTTPPrefetch(t *testing.T) {
	f := newHTTPFixture(t, "", "")
	c := &Client{}
	ctx := context.Background()
	c.Prefetch(ctx, f.repoURL)
	c.Prefetch(ctx, "oci://127.0.0.1:1/charts")
	c.Prefetch(ctx, "::not a url")
	if n := f.repoHits.get(f.indexPath); n != 1 {
		t.Fatalf("index.yaml fetched %d times by Prefetch, want 1", n)
	}
	if err := c.HasVersion(ctx, f.repoURL, "podinfo", podinfoVersions[0]); err != nil {
		t.Fatal(err)
	}
	if n := f.repoHits.total(); n != 1 {
		t.Errorf("%d requests after prefetch and look-up, want 1", n)
	}
}

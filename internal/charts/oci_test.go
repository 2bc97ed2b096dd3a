package charts

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type ociFixture struct {
	*testRegistry
	charts map[string][]byte // "name@version" -> archive
}

func newOCIFixture(t *testing.T, front func(http.Handler) http.Handler) *ociFixture {
	return fillOCI(t, newTestRegistry(t, front))
}

// fillOCI pushes the test charts to tr.
func fillOCI(t *testing.T, tr *testRegistry) *ociFixture {
	f := &ociFixture{testRegistry: tr, charts: map[string][]byte{}}
	push := func(name, version, layerType string) {
		body := makeChart(t, name, version)
		f.charts[name+"@"+version] = body
		f.pushChart(t, "charts/"+name, version, layerType, body)
	}
	for _, v := range append(slices.Clone(podinfoVersions), "7.1.0+build.5") {
		push("podinfo", v, mediaHelmChart)
	}
	// Registries hold more than versions; Versions must skip "latest".
	f.pushChart(t, "charts/podinfo", "latest", mediaHelmChart, f.charts["podinfo@7.0.0"])
	push("legacy", "0.1.0", mediaLegacyChart)
	push("image", "1.0.0", "application/vnd.oci.image.layer.v1.tar+gzip")
	return f
}

func TestOCIVersions(t *testing.T) {
	f := newOCIFixture(t, paginate(2))
	want := []string{"7.1.0+build.5", "7.0.0", "6.3.0", "6.2.1", "6.2.0", "6.1.0", "6.0.0"}
	for _, repo := range []string{"oci://" + f.host() + "/charts", f.host() + "/charts", "oci://" + f.host() + "/charts/"} {
		t.Run(repo, func(t *testing.T) {
			before := f.hits.get("/v2/charts/podinfo/tags/list")
			got, err := (&Client{}).Versions(context.Background(), repo, "podinfo")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Versions (-want +got):\n%s", diff)
			}
			// 8 tags, 2 a page: the Link headers must have been followed.
			if pages := f.hits.get("/v2/charts/podinfo/tags/list") - before; pages != 4 {
				t.Errorf("fetched %d tag pages, want 4", pages)
			}
		})
	}
	if _, err := (&Client{}).Versions(context.Background(), f.host()+"/charts", "nope"); !errors.Is(err, ErrChartNotFound) {
		t.Errorf("Versions(nope) = %v, want ErrChartNotFound", err)
	}
}

func TestOCIHasVersion(t *testing.T) {
	f := newOCIFixture(t, nil)
	repo := "oci://" + f.host() + "/charts"
	tests := []struct {
		name, chart, version string
		wantErr              error
		wantNearest          []string
	}{
		{name: "present", chart: "podinfo", version: "6.2.0"},
		{name: "build metadata tag", chart: "podinfo", version: "7.1.0+build.5"},
		{name: "same semver with v prefix", chart: "podinfo", version: "v6.3.0"},
		{name: "missing version", chart: "podinfo", version: "6.2.2", wantErr: ErrVersionNotFound,
			wantNearest: []string{"7.0.0", "6.3.0", "6.2.1", "6.2.0", "6.1.0"}},
		{name: "missing chart", chart: "nope", version: "1.0.0", wantErr: ErrChartNotFound},
	}
	c := &Client{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.HasVersion(context.Background(), repo, tt.chart, tt.version)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("HasVersion = %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				return
			}
			for _, s := range []string{tt.chart, tt.version, repo} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			var vnf *VersionNotFoundError
			if errors.As(err, &vnf) {
				if diff := cmp.Diff(tt.wantNearest, vnf.Nearest); diff != "" {
					t.Errorf("Nearest (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestOCIFetch(t *testing.T) {
	f := newOCIFixture(t, nil)
	tests := []struct {
		name, chart, version string
		wantErr              error
		wantMsg              string
	}{
		{name: "chart", chart: "podinfo", version: "6.2.0"},
		{name: "build metadata", chart: "podinfo", version: "7.1.0+build.5"},
		{name: "legacy helm layer", chart: "legacy", version: "0.1.0"},
		{name: "not a chart", chart: "image", version: "1.0.0", wantMsg: "not a helm chart"},
		{name: "missing version", chart: "podinfo", version: "5.0.0", wantErr: ErrVersionNotFound},
		{name: "missing chart", chart: "nope", version: "1.0.0", wantErr: ErrChartNotFound},
	}
	c := &Client{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Fetch(context.Background(), f.host()+"/charts", tt.chart, tt.version)
			if tt.wantErr != nil || tt.wantMsg != "" {
				if err == nil || !errors.Is(err, tt.wantErr) && tt.wantErr != nil || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("Fetch error = %v, want %v %q", err, tt.wantErr, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(got, f.charts[tt.chart+"@"+tt.version]) {
				t.Error("Fetch returned bytes that differ from the pushed archive")
			}
			if meta := chartMeta(t, got); meta != tt.chart+"@"+tt.version {
				t.Errorf("archive holds %s", meta)
			}
		})
	}
}

func TestOCIFetchCache(t *testing.T) {
	f := newOCIFixture(t, nil)
	dir := t.TempDir()
	repo := "oci://" + f.host() + "/charts"
	if _, err := (&Client{CacheDir: dir}).Fetch(context.Background(), repo, "podinfo", "6.0.0"); err != nil {
		t.Fatal(err)
	}
	before := f.hits.total()
	got, err := (&Client{CacheDir: dir}).Fetch(context.Background(), repo, "podinfo", "6.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if n := f.hits.total() - before; n != 0 {
		t.Errorf("cache hit made %d requests", n)
	}
	if !cmp.Equal(got, f.charts["podinfo@6.0.0"]) {
		t.Error("cached archive differs")
	}
}

// A registry (or a proxy in between) serving altered blob bytes must be
// caught by the layer digest.
func TestOCIFetchDigestMismatch(t *testing.T) {
	tamper := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.URL.Path, "/blobs/") {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			body := bytes.Clone(rec.Body.Bytes())
			body[len(body)/2] ^= 0xff
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
	f := newOCIFixture(t, tamper)
	_, err := (&Client{}).Fetch(context.Background(), f.host()+"/charts", "podinfo", "6.0.0")
	if !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("Fetch = %v, want ErrDigestMismatch", err)
	}
}

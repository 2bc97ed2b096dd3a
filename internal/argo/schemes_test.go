package argo

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// TestValuesFileSchemes: argocd-cm's helm.valuesFileSchemes decides which
// URL value files (and file parameters) Argo CD reads, compared without
// case; Helm itself reads http and https only, so an allowed s3:// file
// needs a getter plugin in the repo-server: not rendered, saying so.
func TestValuesFileSchemes(t *testing.T) {
	manifest := app("web", `  source:
    repoURL: https://charts.example.org
    chart: c
    targetRevision: "1"
    helm:
      valueFiles: [VALUEFILE]
`)
	for _, tc := range []struct {
		setting, url string
		want         string // "" renders; "not rendered: ..." or an error
	}{
		{"", "https://example.org/v.yaml", ""},
		{"", "http://example.org/v.yaml", ""},
		{"", "HTTPS://example.org/v.yaml", ""},
		{"", "s3://bucket/v.yaml", "the URL scheme 's3' is not allowed"},
		{"https", "http://example.org/v.yaml", "the URL scheme 'http' is not allowed"},
		{"''", "https://example.org/v.yaml", "the URL scheme 'https' is not allowed"},
		{"'s3, https'", "s3://bucket/v.yaml", "value file s3://bucket/...: Helm reads s3:// only through a getter plugin installed in Argo CD's repo-server"},
	} {
		cfg := testConfig(t)
		if tc.setting != "" {
			s := strings.Trim(tc.setting, "'")
			cfg.Argo.Helm.ValuesFileSchemes = &s
		}
		fsys := fstest.MapFS{"argocd/qa/m.yaml": {Data: []byte(strings.Replace(manifest, "VALUEFILE", tc.url, 1))}}
		apps, err := Discover(fsys, cfg, "qa")
		if err != nil {
			t.Fatal(err)
		}
		req, err := apps[0].Resolve(apps[0].Sources[0], ResolveOptions{Config: cfg, FS: fsys, Revision: "1"})
		got := ""
		if err != nil {
			got = err.Error()
			if errors.Is(err, ErrNotRendered) {
				got = "not rendered: " + got
			}
		}
		if tc.want == "" && (err != nil || len(req.Helm.ValueFiles) != 1 || !req.Helm.ValueFiles[0].Remote) {
			t.Errorf("%s with %q: %v, %+v", tc.url, tc.setting, err, req)
		}
		if tc.want != "" && (!strings.Contains(got, tc.want) || strings.HasPrefix(tc.want, "value file") != errors.Is(err, ErrNotRendered)) {
			t.Errorf("%s with %q: err %q, want %q", tc.url, tc.setting, got, tc.want)
		}
	}
}

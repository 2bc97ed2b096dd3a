package charts

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsOCI(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"oci://ghcr.io/org/charts", true},
		{"ghcr.io/org/charts", true},
		{"registry-1.docker.io/bitnamicharts", true},
		{"localhost:5000/charts", true},
		{"myregistry:5000/charts", true},
		{"127.0.0.1:5000", true},
		{"https://charts.bitnami.com/bitnami", false},
		{"http://localhost:8879", false},
		{"git@github.com:org/repo.git", false},
		{"charts/podinfo", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsOCI(tt.in); got != tt.want {
			t.Errorf("IsOCI(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseRepo(t *testing.T) {
	tests := []struct {
		in, display, base, path string
		auth                    Auth
	}{
		{in: "https://charts.example.com/stable/", display: "https://charts.example.com/stable", base: "https://charts.example.com/stable"},
		{in: "https://u:p@charts.example.com", display: "https://charts.example.com", base: "https://charts.example.com", auth: up("u", "p")},
		{in: "ghcr.io/org/charts", display: "oci://ghcr.io/org/charts", base: "https://ghcr.io", path: "org/charts"},
		{in: "oci://127.0.0.1:5000/a/b/", display: "oci://127.0.0.1:5000/a/b", base: "https://127.0.0.1:5000", path: "a/b"},
		{in: "oci://localhost:5000", display: "oci://localhost:5000", base: "https://localhost:5000"},
	}
	for _, tt := range tests {
		r, err := parseRepo(tt.in)
		if err != nil {
			t.Errorf("parseRepo(%q): %v", tt.in, err)
			continue
		}
		got := []any{r.display, r.base.String(), r.path, r.auth}
		if diff := cmp.Diff([]any{tt.display, tt.base, tt.path, tt.auth}, got); diff != "" {
			t.Errorf("parseRepo(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseChallenge(t *testing.T) {
	tests := []struct {
		in, scheme string
		params     map[string]string
	}{
		{
			in:     `Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"`,
			scheme: "Bearer",
			params: map[string]string{"realm": "https://auth.docker.io/token", "service": "registry.docker.io", "scope": "repository:library/nginx:pull"},
		},
		{
			in:     `Bearer realm="https://ghcr.io/token", scope="repository:a/b:pull,push", service=ghcr.io`,
			scheme: "Bearer",
			params: map[string]string{"realm": "https://ghcr.io/token", "scope": "repository:a/b:pull,push", "service": "ghcr.io"},
		},
		{in: `Basic realm="Registry \"x\""`, scheme: "Basic", params: map[string]string{"realm": `Registry "x"`}},
		{in: `Basic`, scheme: "Basic", params: map[string]string{}},
	}
	for _, tt := range tests {
		scheme, params := parseChallenge(tt.in)
		if diff := cmp.Diff([]any{tt.scheme, tt.params}, []any{scheme, params}); diff != "" {
			t.Errorf("parseChallenge(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestLinkNext(t *testing.T) {
	tests := []struct{ in, want string }{
		{`</v2/a/tags/list?n=2&last=b>; rel="next"`, "/v2/a/tags/list?n=2&last=b"},
		{`</prev>; rel="prev", </next>; rel="next"`, "/next"},
		{`<https://r.example/v2/a/tags/list?last=c>; rel=next`, "https://r.example/v2/a/tags/list?last=c"},
		{`</first>; rel="first"`, ""},
		{``, ""},
		{`<broken`, ""},
	}
	for _, tt := range tests {
		if got := linkNext(tt.in); got != tt.want {
			t.Errorf("linkNext(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNextPageStaysOnRegistry(t *testing.T) {
	r, _ := parseRepo("oci://127.0.0.1:5000/charts")
	cur := "http://127.0.0.1:5000/v2/charts/x/tags/list"
	got, err := nextPage(r, cur, `</v2/charts/x/tags/list?last=b>; rel="next"`, "tags")
	if err != nil || got != "http://127.0.0.1:5000/v2/charts/x/tags/list?last=b" {
		t.Errorf("relative link: %q, %v", got, err)
	}
	if _, err := nextPage(r, cur, `<http://evil.example/v2/x>; rel="next"`, "tags"); err == nil || !strings.Contains(err.Error(), "leaves the registry") {
		t.Errorf("cross-origin link: %v, want refusal", err)
	}
}

func TestSortAndNearest(t *testing.T) {
	sorted := sortVersions([]string{"1.10.0", "1.2.0", "latest", "1.9.0-rc.1", "1.9.0", "v2.0.0", "0.1.0", "abc"})
	want := []string{"v2.0.0", "1.10.0", "1.9.0", "1.9.0-rc.1", "1.2.0", "0.1.0", "abc", "latest"}
	if diff := cmp.Diff(want, sorted); diff != "" {
		t.Errorf("sortVersions (-want +got):\n%s", diff)
	}
	tests := []struct {
		want string
		n    int
		out  []string
	}{
		{"1.9.5", 3, []string{"1.10.0", "1.9.0", "1.9.0-rc.1"}},
		{"9.0.0", 2, []string{"v2.0.0", "1.10.0"}},
		{"0.0.1", 2, []string{"1.2.0", "0.1.0"}},
		{"not-a-version", 2, []string{"v2.0.0", "1.10.0"}},
		{"1.0.0", 20, want},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.out, nearest(sorted, tt.want, tt.n)); diff != "" {
			t.Errorf("nearest(%q, %d) (-want +got):\n%s", tt.want, tt.n, diff)
		}
	}
}

func TestParseIndex(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string][]indexEntry
		wantErr  string
	}{
		{
			name: "yaml with numeric version and broken entry",
			in:   "apiVersion: v1\nentries:\n  a:\n  - version: 1.0\n    urls: [a-1.0.tgz]\n    digest: abc\n  - name: a\n  b: []\n",
			want: map[string][]indexEntry{"a": {{Version: "1.0", URLs: []string{"a-1.0.tgz"}, Digest: "abc"}}, "b": {}},
		},
		{
			name: "json",
			in:   `{"apiVersion":"v1","entries":{"a":[{"version":"2.0.0","urls":["https://x/a.tgz"]}]}}`,
			want: map[string][]indexEntry{"a": {{Version: "2.0.0", URLs: []string{"https://x/a.tgz"}}}},
		},
		{name: "html error page", in: "<html><body>Not Found</body></html>", wantErr: "parse index.yaml"},
		{name: "no apiVersion", in: "entries: {}\n", wantErr: "no apiVersion"},
		{name: "bad yaml", in: "apiVersion: v1\nentries: [\n", wantErr: "parse index.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx, err := parseIndex([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, idx.Entries); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSameOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://charts.example.com/a", "https://charts.example.com:443/b", true},
		{"https://Charts.Example.com/a", "https://charts.example.com/b", true},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/x", true},
		{"https://charts.example.com/", "http://charts.example.com/", false},
		{"https://charts.example.com/", "https://cdn.example.com/", false},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8081/", false},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := sameOrigin(a, b); got != tt.want {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

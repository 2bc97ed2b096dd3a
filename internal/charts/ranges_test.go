package charts

import (
	"context"
	"errors"
	"testing"
)

// TestMaxVersion follows Argo CD's rule for a Helm targetRevision range:
// the highest published version that satisfies it; a pin is kept as is.
func TestMaxVersion(t *testing.T) {
	published := []string{"1.0.0", "1.2.0", "1.2.5", "1.10.0", "2.0.0-rc.1", "2.0.0", "4.0.1", "4.3.0", "4.12.2", "5.0.0-beta.1", "latest"}
	for _, tc := range []struct{ rev, want string }{
		{"4.*", "4.12.2"},
		{"^1.2", "1.10.0"},
		{"~1.2", "1.2.5"},
		{">=1.0 <2", "1.10.0"},
		{">=1.0, <2.0.0", "1.10.0"},
		{"*", "4.12.2"},               // pre-releases only match a constraint naming one
		{">=5.0.0-0", "5.0.0-beta.1"}, // ...like this one
		{"1.2.0", "1.2.0"},
		{"v1.2", "v1.2"},
		{"latest", "latest"},
	} {
		got, err := MaxVersion(tc.rev, published)
		if err != nil || got != tc.want {
			t.Errorf("MaxVersion(%q) = %q, %v; want %q", tc.rev, got, err, tc.want)
		}
	}
	if _, err := MaxVersion("9.*", published); !errors.Is(err, ErrVersionNotFound) {
		t.Errorf("MaxVersion(9.*) error = %v, want ErrVersionNotFound", err)
	}
	for rev, want := range map[string]bool{"4.*": true, "^1.2": true, ">=1.0 <2": true, "1.2.3": false, "v1": false, "": false, "main": false} {
		if got := IsConstraint(rev); got != want {
			t.Errorf("IsConstraint(%q) = %v, want %v", rev, got, want)
		}
	}
}

// TestResolveVersion resolves ranges against a real chart repository's
// index and a real OCI registry's tags, and never looks up a pin.
func TestResolveVersion(t *testing.T) {
	h := newHTTPFixture(t, "", "")
	o := newOCIFixture(t, paginate(2))
	for _, tc := range []struct{ repo, rev, want string }{
		{h.repoURL, "6.*", "6.3.0"},
		{h.repoURL, "^6.1", "6.3.0"},
		{h.repoURL, ">=6.0 <6.2", "6.1.0"},
		{"oci://" + o.host() + "/charts", "7.*", "7.1.0+build.5"},
		{"oci://" + o.host() + "/charts", "~6.2", "6.2.1"},
	} {
		got, err := (&Client{}).ResolveVersion(context.Background(), tc.repo, "podinfo", tc.rev)
		if err != nil || got != tc.want {
			t.Errorf("%s %s: %q, %v; want %q", tc.repo, tc.rev, got, err, tc.want)
		}
	}
	before := h.repoHits.total()
	if got, err := (&Client{}).ResolveVersion(context.Background(), h.repoURL, "podinfo", "6.2.0"); err != nil || got != "6.2.0" {
		t.Errorf("pin: %q, %v", got, err)
	}
	if h.repoHits.total() != before {
		t.Errorf("a pinned version looked the repository up")
	}
	if _, err := (&Client{}).ResolveVersion(context.Background(), h.repoURL, "podinfo", "8.*"); !errors.Is(err, ErrVersionNotFound) {
		t.Errorf("8.*: %v, want ErrVersionNotFound", err)
	}
}

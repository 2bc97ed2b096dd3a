package argo

import (
	"encoding/json"
	"errors"
	"sort"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// With Emit, discovery hands over the apps it would return, no more and
// no fewer once duplicates are dropped, and returns none itself; the
// failures are the same, a duplicated name marked as such.
func TestDiscoverEmit(t *testing.T) {
	fsys, cfg := fixture(t)
	withDup := fstest.MapFS{"d/x.yaml": {Data: []byte("{}")},
		"argocd/qa/a.yaml": {Data: []byte(app("x", "  source: {repoURL: r, chart: c}\n") + "---\n" + app("y", "  source: {repoURL: r, chart: c}\n"))},
		"argocd/qa/b.yaml": {Data: []byte(app("x", "  source: {repoURL: r, chart: c}\n"))},
		"argocd/qa/c.yaml": {Data: []byte("kind: [\n")}}
	for _, tc := range []struct {
		name string
		run  func(DiscoverOptions) ([]App, error)
		dup  string // the name generated twice, if any
	}{
		{"fixture", func(o DiscoverOptions) ([]App, error) { return DiscoverWith(fsys, cfg, "qa", o) }, ""},
		{"a name twice, a file that does not parse", func(o DiscoverOptions) ([]App, error) {
			return DiscoverWith(withDup, testConfig(t), "qa", o)
		}, "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := tc.run(DiscoverOptions{})
			var got []App
			none, err := tc.run(DiscoverOptions{Emit: func(a App) { got = append(got, a) }})
			if len(none) != 0 {
				t.Errorf("returned %d apps with Emit, want none", len(none))
			}
			var dups []App
			kept := got[:0]
			for _, a := range got {
				if a.Name == tc.dup {
					dups = append(dups, a)
					continue
				}
				kept = append(kept, a)
			}
			if tc.dup != "" && len(dups) != 1 {
				t.Errorf("emitted %d apps named %s, want the first only", len(dups), tc.dup)
			}
			sort.Slice(kept, func(i, j int) bool { return kept[i].Name < kept[j].Name })
			if len(want) == 0 {
				t.Fatal("no apps: the case tests nothing")
			}
			if diff := cmp.Diff(asJSON(t, golden(want)), asJSON(t, golden(kept))); diff != "" {
				t.Errorf("emitted apps (-returned +emitted):\n%s", diff)
			}
			if (wantErr == nil) != (err == nil) || wantErr != nil && wantErr.Error() != err.Error() {
				t.Fatalf("err = %v, want %v", err, wantErr)
			}
			var derr *DiscoveryError
			if tc.dup == "" {
				return
			}
			if !errors.As(err, &derr) {
				t.Fatalf("err = %v, want a *DiscoveryError", err)
			}
			for _, f := range derr.Failures {
				if f.Duplicate != (f.Name == tc.dup) {
					t.Errorf("failure %s: Duplicate = %v", f.Name, f.Duplicate)
				}
			}
		})
	}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

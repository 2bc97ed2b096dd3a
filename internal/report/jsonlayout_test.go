package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// JSON writes the document app by app; its bytes must be what an
// indenting encoder writes for the whole document, whatever the report
// holds. The reference builds that document as JSON did before.
func TestJSONIsTheWholeDocument(t *testing.T) {
	base := fixtureReport(t)
	shard := base
	shard.Shard = &Shard{Index: 1, Total: 2, Envs: []string{"staging"}}
	live := base
	live.Apps = slices.Clone(base.Apps)
	live.LiveEnvs = []LiveEnv{{Env: "staging", Cluster: "ctx <https://k8s>", Findings: []LiveFinding{{Kind: "Secret", Reason: "forbidden"}}}}
	live.Apps[0].Live = &Live{Error: "a & b <c>", Findings: []LiveFinding{{Kind: "Job", Message: "x"}}}
	reversed := base
	reversed.Apps = slices.Clone(base.Apps)
	slices.Reverse(reversed.Apps)
	escaped := base
	escaped.Apps = slices.Clone(base.Apps)
	escaped.Apps[0].Error = "value <redacted> & \"quoted\" \u2028 \x01"
	for name, r := range map[string]Report{
		"fixture": base, "shard": shard, "live": live, "apps out of order": reversed,
		"characters to escape": escaped, "no apps": {Base: "a", Head: "b"},
	} {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			if err := JSON(&got, r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wholeDocument(t, r), got.String()); diff != "" {
				t.Errorf("JSON (-whole document +written):\n%s", diff)
			}
		})
	}
}

func wholeDocument(t *testing.T, r Report) string {
	t.Helper()
	doc := jsonReport{Base: r.Base, Head: r.Head, Shard: r.Shard, LiveEnvs: toJSONLiveEnvs(r.LiveEnvs), Apps: []jsonApp{}, Summary: r.Summary()}
	for _, g := range r.ordered() {
		for _, a := range g.Apps {
			doc.Apps = append(doc.Apps, toJSONApp(a, r.Shard != nil))
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Apps that already come env by env, each env's by name, are grouped
// without a copy; any other order is grouped and sorted as before.
func TestOrderedInPlace(t *testing.T) {
	app := func(env, name string) App { return App{Env: env, Name: name} }
	for _, tc := range []struct {
		name    string
		apps    []App
		inPlace bool
		want    []envGroup
	}{
		{"in order", []App{app("qa", "a"), app("qa", "b"), app("prod", "a")}, true,
			[]envGroup{{"qa", []App{app("qa", "a"), app("qa", "b")}}, {"prod", []App{app("prod", "a")}}}},
		{"a name twice", []App{app("qa", "a"), app("qa", "a")}, true,
			[]envGroup{{"qa", []App{app("qa", "a"), app("qa", "a")}}}},
		{"names out of order", []App{app("qa", "b"), app("qa", "a")}, false,
			[]envGroup{{"qa", []App{app("qa", "a"), app("qa", "b")}}}},
		{"an env twice", []App{app("qa", "a"), app("prod", "a"), app("qa", "b")}, false,
			[]envGroup{{"qa", []App{app("qa", "a"), app("qa", "b")}}, {"prod", []App{app("prod", "a")}}}},
		{"none", nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Report{Apps: tc.apps}
			got := r.ordered()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("groups (-want +got):\n%s", diff)
			}
			if len(got) > 0 && (&got[0].Apps[0] == &r.Apps[0]) != tc.inPlace {
				t.Errorf("grouped in place: %v, want %v", !tc.inPlace, tc.inPlace)
			}
		})
	}
}
